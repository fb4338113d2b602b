"""expect_linear_in_tokens: linear forms pass on little work; quadratic work, CPU time or memory fails, saying which."""

from __future__ import annotations

import pytest

from autograder.testkit import CheckFailure, scaling

NEVER, INSTEAD = "meet every key for every query", "sum over the keys once"
YARDSTICK = 0.0125  # seconds of linear attention over LONG_N tokens, as the grader's machine measured it
CAPPED_LINEAR = 0.09  # a fast linear call at CAPPED_N tokens (the reference of problem 5), unless a test says otherwise
CAPPED = scaling.CAPPED_N


class FakeCall:
    """A call whose cost at each length is given (a dict, an exception to raise, or a list of them, one per reading), as
    the sandbox would report it."""

    costs: dict[int, dict | Exception | list] = {}
    compared: list[int] = []
    read: list[int] = []
    fresh: list[bool] = []  # whether each call read ran in a fresh process, in order

    def __init__(self, function, *args) -> None:
        self.n = args[0]
        self.func = function
        self.shown = f"m.{function}(N={self.n})"

    def cost(self, work: bool = False, memory_mb: int | None = None, fresh: bool = False) -> dict:
        assert work == (self.n in scaling.WORK_SIZES)
        assert memory_mb == scaling.memory_room_mb(self.n)
        self.read.append(self.n)
        self.fresh.append(fresh)
        found = self.costs.get(self.n, {"cpu_seconds": CAPPED_LINEAR})
        if isinstance(found, list):
            found = found.pop(0)
        if isinstance(found, Exception):
            raise found
        return found

    def reference(self) -> str:
        return "expected"

    def matches(self, expected, hints: bool = True) -> None:
        assert expected == "expected" and not hints
        self.compared.append(self.n)


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setattr(scaling, "Call", FakeCall)
    FakeCall.compared, FakeCall.read, FakeCall.fresh = [], [], []
    yardstick(monkeypatch, YARDSTICK)
    return FakeCall


def yardstick(monkeypatch, seconds: float) -> None:
    """The machine's pace, as ``testkit/calibration.py`` would measure it: ``seconds`` for LONG_N tokens."""
    monkeypatch.setattr(scaling, "linear_attention_seconds", lambda tokens: seconds * tokens / scaling.LONG_N)


def inputs(n: int) -> tuple[int]:
    return (n,)


def check(fake, costs: dict[int, dict | Exception]) -> None:
    fake.costs = costs
    scaling.expect_linear_in_tokens("attend", inputs, never=NEVER, instead=INSTEAD, capped_inputs=inputs)


def sized(small_work, large_work, large_cpu, long_cpu):
    small, large = scaling.WORK_SIZES
    return {small: {"work": small_work, "cpu_seconds": 0.01}, large: {"work": large_work, "cpu_seconds": large_cpu},
            scaling.LONG_N: {"cpu_seconds": long_cpu}}


def test_linear_work_passes_and_the_long_call_is_compared(fake):
    check(fake, sized(1_000_000, 4_010_000, 0.02, 0.11))
    assert fake.compared == [scaling.LONG_N, CAPPED]


def test_work_that_grows_as_n_squared_fails_and_says_what_to_do(fake):
    with pytest.raises(CheckFailure) as failed:
        check(fake, sized(5_000_000, 79_000_000, 0.02, 0.1))
    message = str(failed.value)
    assert "did 15.8 times the work in torch" in message and "5,000,000 -> 79,000,000" in message
    assert f"it may not {NEVER}; {INSTEAD}." in message and "m.attend(N=1024)" in message
    assert not fake.compared


def test_numpy_work_is_judged_by_cpu_time_above_its_floor(fake):
    with pytest.raises(CheckFailure, match=r"grew 63\.3 times as much from 256 to 8192 tokens as from 256 to 1024 "
                                           r"\(0\.010 s -> 0\.030 s -> 1\.27 s"):
        check(fake, sized(0, 0, 0.03, 1.275))
    floor = scaling.CPU_FLOOR_LINEAR_FORMS * YARDSTICK
    check(fake, sized(0, 0, 0.003, 0.01 + floor))  # too little more than the small call to time, whatever its growth
    assert fake.compared == [scaling.LONG_N, CAPPED]
    with pytest.raises(CheckFailure, match=rf"at most {floor:.2f} s more than the one at 256: "
                                           rf"{scaling.CPU_FLOOR_LINEAR_FORMS} times what linear attention"):
        check(fake, sized(0, 0, 0.003, 0.02 + floor))


# CPU seconds at 256 and 1024 tokens (counted) and at 8192, and the yardstick, measured through the sandbox
# (bench/bench_scaling_cpu.py, medians of 5): quadratic numpy in blocks of 512 queries, quadratic work in a forked
# process, and the fast linear reference of problem 5.
NUMPY_BLOCKWISE = (0.008, 0.015, 0.458, 0.0115)
QUADRATIC_IN_CHILD = (0.016, 0.023, 0.445, 0.0113)
FAST_REFERENCE = (0.008, 0.009, 0.058, 0.0116)


@pytest.mark.parametrize("faster", [1, 2, 4, 8])
def test_the_verdicts_do_not_depend_on_how_fast_the_machine_is(fake, monkeypatch, faster):
    # A machine `faster` times as fast per core divides every CPU time, the yardstick's included.
    for small_cpu, large_cpu, long_cpu, seconds in (NUMPY_BLOCKWISE, QUADRATIC_IN_CHILD):
        yardstick(monkeypatch, seconds / faster)
        costs = sized(0, 0, large_cpu / faster, long_cpu / faster)
        costs[scaling.WORK_SIZES[0]]["cpu_seconds"] = small_cpu / faster
        with pytest.raises(CheckFailure, match=r"CPU time grew [0-9.]+ times as much"):
            check(fake, costs)
    small_cpu, large_cpu, long_cpu, seconds = FAST_REFERENCE
    yardstick(monkeypatch, seconds / faster)
    costs = sized(0, 0, large_cpu / faster, long_cpu / faster)
    costs[scaling.WORK_SIZES[0]]["cpu_seconds"] = small_cpu / faster
    check(fake, costs)


def test_a_fixed_cost_per_call_does_not_hide_quadratic_cpu_time(fake):
    # Quadratic work in a forked process: the fork's cost at every length makes it 21 times from 1024 tokens, under
    # the limit; from 256 tokens it grew 61 times as much as from 256 to 1024 (judged as 51.5: a growth from 256 to
    # 1024 below the floor's share, 0.0083 s here, counts as that much).
    with pytest.raises(CheckFailure, match=r"grew 51\.5 times as much"):
        check(fake, {256: {"work": 0, "cpu_seconds": 0.014}, 1024: {"work": 0, "cpu_seconds": 0.021},
                     scaling.LONG_N: {"cpu_seconds": 0.441}})
    check(fake, {256: {"work": 0, "cpu_seconds": 0.014}, 1024: {"work": 0, "cpu_seconds": 0.052},
                 scaling.LONG_N: {"cpu_seconds": 0.4}})  # linear after the same fixed cost: 10.2 times
    assert fake.compared == [scaling.LONG_N, CAPPED]


def test_the_call_at_the_larger_work_size_is_read_again_after_the_long_one_and_its_least_cpu_time_kept(fake):
    # Quadratic work in a forked process, whose first call at 1024 tokens met a burst of load (as beside a grade-all of
    # two jobs: 21 ms -> 37 ms at 256 and 1024 tokens, against 17 ms -> 23 ms idle). Read once, it grows 17.5 times
    # and passes; read again, it grows 51 times (a growth from 256 to 1024 below the floor's share counts as that).
    small, large = scaling.WORK_SIZES
    burst = {small: {"work": 0, "cpu_seconds": 0.021}, large: [{"work": 0, "cpu_seconds": 0.045}, {"work": 9, "cpu_seconds": 0.028}],
             scaling.LONG_N: {"cpu_seconds": 0.44}}
    with pytest.raises(CheckFailure, match=r"grew 50\.6 times as much .*\(0\.021 s -> 0\.028 s -> 0\.44 s"):
        check(fake, burst)
    assert fake.read == [small, large, scaling.LONG_N, large, scaling.LONG_N]  # the long call read again: it failed
    fake.read = []
    # A second reading that costs more changes nothing: linear work after a fixed cost still passes.
    check(fake, {small: {"work": 0, "cpu_seconds": 0.014}, large: [{"work": 0, "cpu_seconds": 0.052}, {"work": 0, "cpu_seconds": 0.09}],
                 scaling.LONG_N: {"cpu_seconds": 0.4}})
    assert fake.compared == [scaling.LONG_N, CAPPED] and fake.read == [small, large, scaling.LONG_N, large, CAPPED]


def test_a_call_at_the_larger_work_size_that_fails_when_read_again_fails_the_check(fake):
    small, large = scaling.WORK_SIZES
    with pytest.raises(CheckFailure, match=r"^m\.attend raised RuntimeError: twice\nWith N = 1024 tokens"):
        check(fake, {small: {"work": 0, "cpu_seconds": 0.01}, large: [{"work": 0, "cpu_seconds": 0.02}, CheckFailure("m.attend raised RuntimeError: twice")],
                     scaling.LONG_N: {"cpu_seconds": 0.05}})
    assert not fake.compared


def test_a_slow_counted_loop_passes_when_its_long_call_is_not_slower(fake):
    check(fake, sized(337_540, 1_349_764, 1.12, 1.0))
    assert fake.compared == [scaling.LONG_N, CAPPED]


def test_an_allocation_refused_at_the_long_length_names_the_matrix_and_the_cap(fake):
    with pytest.raises(CheckFailure) as failed:
        check(fake, sized(1, 4, 0.0, 0.0) | {scaling.LONG_N: CheckFailure("m.attend raised RuntimeError: can't allocate")})
    message = str(failed.value)
    assert message.startswith("m.attend raised RuntimeError")
    assert f"With N = {scaling.LONG_N} tokens, attend must use time and memory linear in N" in message
    assert f"would need 512 MiB here, more than the {scaling.LONG_MEMORY_MB} MiB this call may use), nor {NEVER}." in message
    assert not fake.compared


def test_an_allocation_refused_at_a_small_length_gives_the_matrix_in_kib(fake):
    small = scaling.WORK_SIZES[0]
    with pytest.raises(CheckFailure) as failed:
        check(fake, {small: CheckFailure("m.attend raised MemoryError")})
    assert f"an N x N float64 matrix would need {small * small * 8 // 1024} KiB here), nor {NEVER}." in str(failed.value)


def test_a_public_check_at_a_modest_size_counts_torch_work_only_and_compares_the_larger_call(fake):
    small, large = scaling.WORK_SIZES
    fake.costs = {small: {"work": 1_000_000, "cpu_seconds": 0.01}, large: {"work": 4_010_000, "cpu_seconds": 0.02}}
    scaling.expect_linear_in_tokens("attend", inputs, never=NEVER, instead=INSTEAD, long=False)
    assert fake.compared == [large] and fake.read == [small, large]  # read once each: no CPU time is judged
    fake.costs = {small: {"work": 5_000_000, "cpu_seconds": 0.01}, large: {"work": 79_000_000, "cpu_seconds": 0.02}}
    with pytest.raises(CheckFailure, match=r"did 15\.8 times the work in torch"):
        scaling.expect_linear_in_tokens("attend", inputs, never=NEVER, instead=INSTEAD, long=False)


# The CI run of a fair variant (numpy, writing the feature map's columns one at a time into an 8 MB array) beside the
# suite's other workers: 0.005 s -> 0.008 s -> 0.20 s, against its usual 0.05 s at 8192 tokens, with a yardstick of
# 0.0121 s.
def burst_at_long(*long_readings: float) -> dict:
    return {256: {"work": 0, "cpu_seconds": 0.005}, 1024: [{"work": 0, "cpu_seconds": 0.008}] * 2,
            scaling.LONG_N: [{"cpu_seconds": s} for s in long_readings]}


def test_a_long_call_that_fails_is_read_again_in_a_fresh_process_and_its_lesser_cpu_time_kept(fake, monkeypatch):
    yardstick(monkeypatch, 0.0121)
    small, large, long = *scaling.WORK_SIZES, scaling.LONG_N
    check(fake, burst_at_long(0.20, 0.052))
    assert fake.read == [small, large, long, large, long, CAPPED]
    assert fake.fresh == [False] * 4 + [True, True]  # nothing the first reading computed or kept makes the second cheap
    assert fake.compared == [long, long, CAPPED]  # the second call's value is judged too


def test_read_once_the_burst_fails_fair_code(fake, monkeypatch):
    # Why the long call is read again: with a second reading as slow as the first, the fair variant loses the point.
    yardstick(monkeypatch, 0.0121)
    with pytest.raises(CheckFailure, match=r"grew 24\.3 times as much .*\(0\.005 s -> 0\.008 s -> 0\.20 s, the lesser "
                                           r"of two calls at 8192 tokens, the second in a fresh process, counting"):
        check(fake, burst_at_long(0.20, 0.21))
    assert not fake.compared


def test_a_linear_long_call_is_read_once(fake):
    small, large, long = *scaling.WORK_SIZES, scaling.LONG_N
    check(fake, sized(0, 0, 0.02, 0.11))
    assert fake.read == [small, large, long, large, CAPPED] and fake.compared == [long, CAPPED]
    assert fake.fresh == [False] * 4 + [True]  # the capped call runs in a fresh process


def test_quadratic_work_read_again_still_fails(fake):
    small_cpu, large_cpu, long_cpu, seconds = NUMPY_BLOCKWISE
    costs = sized(0, 0, large_cpu, None) | {scaling.LONG_N: [{"cpu_seconds": long_cpu}, {"cpu_seconds": long_cpu * 0.9}]}
    costs[scaling.WORK_SIZES[0]]["cpu_seconds"] = small_cpu
    with pytest.raises(CheckFailure, match=r"grew [0-9.]+ times as much .*, the lesser of two calls"):
        check(fake, costs)


def test_a_long_call_that_fails_when_read_again_fails_the_check(fake):
    with pytest.raises(CheckFailure, match=r"^m\.attend raised MemoryError\nWith N = 8192 tokens"):
        check(fake, sized(0, 0, 0.02, None) | {scaling.LONG_N: [{"cpu_seconds": 1.5}, CheckFailure("m.attend raised MemoryError")]})
    assert not fake.compared


# CPU spent only in the smaller calls: problem 5's blockwise numpy form (0.41 s at 8192 tokens, 1.65 s at 16384) with
# 50 ms of spinning in each call at 1024 tokens grows 7 times, under the limit.
PADDED_AT_1024 = {256: {"work": 0, "cpu_seconds": 0.008}, 1024: [{"work": 0, "cpu_seconds": 0.063}] * 2,
                  scaling.LONG_N: {"cpu_seconds": 0.41}}


def test_cpu_time_spent_in_the_smaller_calls_does_not_pass_quadratic_work(fake):
    cap = scaling.CPU_CAP_YARDSTICKS * YARDSTICK * CAPPED / scaling.LONG_N
    with pytest.raises(CheckFailure, match=rf"took 1\.65 s of CPU for 16384 tokens \(the lesser of 2 calls, each in a "
                                           rf"fresh process\), .*: 66 times what linear attention over 16384 tokens "
                                           rf"takes on this machine, where .* up to 40 times \({cap:.2f} s\), whatever "
                                           rf"the smaller calls took"):
        check(fake, PADDED_AT_1024 | {CAPPED: [{"cpu_seconds": 1.65}, {"cpu_seconds": 1.7}]})
    assert fake.read[-2:] == [CAPPED, CAPPED] and fake.fresh[-2:] == [True, True]
    assert fake.compared == [scaling.LONG_N]  # the value of a call that failed its time is not judged


def test_the_capped_call_passes_the_slowest_fair_form_and_reads_a_burst_again_in_a_fresh_process(fake):
    small, large, long = *scaling.WORK_SIZES, scaling.LONG_N
    # The per-token loop of problem 6: 0.445 s at 16384 tokens, 18 yardsticks of that size here.
    check(fake, sized(0, 0, 0.17, 0.22) | {CAPPED: {"cpu_seconds": 0.445}})
    assert fake.read == [small, large, long, large, CAPPED] and fake.compared == [long, CAPPED]
    fake.read, fake.compared, fake.fresh = [], [], []
    check(fake, sized(0, 0, 0.02, 0.11) | {CAPPED: [{"cpu_seconds": 1.2}, {"cpu_seconds": 0.09}]})
    assert fake.read == [small, large, long, large, CAPPED, CAPPED] and fake.fresh == [False] * 4 + [True, True]
    assert fake.compared == [long, CAPPED, CAPPED]


def test_a_capped_call_refused_its_memory_names_the_cap(fake):
    with pytest.raises(CheckFailure, match=r"^m\.attend raised MemoryError\nWith N = 16384 tokens, attend must use time "
                                           r"and memory linear in N: .* would need 2 GiB here, more than the 1024 MiB"):
        check(fake, sized(0, 0, 0.02, 0.11) | {CAPPED: CheckFailure("m.attend raised MemoryError")})


def test_a_check_given_no_inputs_for_the_capped_call_makes_none(fake):
    small, large, long = *scaling.WORK_SIZES, scaling.LONG_N
    fake.costs = sized(0, 0, 0.02, 0.11)
    scaling.expect_linear_in_tokens("attend", inputs, never=NEVER, instead=INSTEAD)
    assert fake.read == [small, large, long, large] and fake.compared == [long]
