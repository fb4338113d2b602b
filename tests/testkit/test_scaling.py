"""expect_linear_in_tokens: linear forms pass on little work; quadratic work, CPU time or memory fails, saying which."""

from __future__ import annotations

import pytest

from autograder.testkit import CheckFailure, scaling

NEVER, INSTEAD = "meet every key for every query", "sum over the keys once"


class FakeCall:
    """A call whose cost at each length is given (a dict, or an exception to raise), as the sandbox would report it."""

    costs: dict[int, dict | Exception] = {}
    compared: list[int] = []

    def __init__(self, function, *args) -> None:
        self.n = args[0]
        self.func = function
        self.shown = f"m.{function}(N={self.n})"

    def cost(self, work: bool = False, memory_mb: int | None = None) -> dict:
        assert work == (self.n in scaling.WORK_SIZES)
        assert memory_mb == (scaling.LONG_MEMORY_MB if self.n == scaling.LONG_N else None)
        found = self.costs[self.n]
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
    FakeCall.compared = []
    return FakeCall


def check(fake, costs: dict[int, dict | Exception]) -> None:
    fake.costs = costs
    scaling.expect_linear_in_tokens("attend", lambda n: (n,), never=NEVER, instead=INSTEAD)


def sized(small_work, large_work, large_cpu, long_cpu):
    small, large = scaling.WORK_SIZES
    return {small: {"work": small_work, "cpu_seconds": 0.01}, large: {"work": large_work, "cpu_seconds": large_cpu},
            scaling.LONG_N: {"cpu_seconds": long_cpu}}


def test_linear_work_passes_and_the_long_call_is_compared(fake):
    check(fake, sized(1_000_000, 4_010_000, 0.02, 0.11))
    assert fake.compared == [scaling.LONG_N]


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
    check(fake, sized(0, 0, 0.003, scaling.CPU_FLOOR))  # fast whatever its growth: timer noise rules there
    assert fake.compared == [scaling.LONG_N]


def test_a_fixed_cost_per_call_does_not_hide_quadratic_cpu_time(fake):
    # Quadratic work in a forked process: the fork's cost at every length makes it 21 times from 1024 tokens, under
    # the limit; from 256 tokens it grew 61 times as much as from 256 to 1024.
    with pytest.raises(CheckFailure, match=r"grew 61\.0 times as much"):
        check(fake, {256: {"work": 0, "cpu_seconds": 0.014}, 1024: {"work": 0, "cpu_seconds": 0.021},
                     scaling.LONG_N: {"cpu_seconds": 0.441}})
    check(fake, {256: {"work": 0, "cpu_seconds": 0.014}, 1024: {"work": 0, "cpu_seconds": 0.052},
                 scaling.LONG_N: {"cpu_seconds": 0.4}})  # linear after the same fixed cost: 10.2 times
    assert fake.compared == [scaling.LONG_N]


def test_a_slow_counted_loop_passes_when_its_long_call_is_not_slower(fake):
    check(fake, sized(337_540, 1_349_764, 1.12, 1.0))
    assert fake.compared == [scaling.LONG_N]


def test_an_allocation_refused_at_the_long_length_names_the_matrix_and_the_cap(fake):
    with pytest.raises(CheckFailure) as failed:
        check(fake, sized(1, 4, 0.0, 0.0) | {scaling.LONG_N: CheckFailure("m.attend raised RuntimeError: can't allocate")})
    message = str(failed.value)
    assert message.startswith("m.attend raised RuntimeError")
    assert f"With N = {scaling.LONG_N} tokens, attend must use time and memory linear in N" in message
    assert f"would need 512 MiB here, more than the {scaling.LONG_MEMORY_MB} MB this call may use), nor {NEVER}." in message
    assert not fake.compared
