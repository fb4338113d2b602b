"""Student calls are recorded with every check deferred, then judged: nothing the grader judges reaches student code."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.grading import runner
from autograder.grading.proxy import StudentModule
from autograder.sandbox.session import StudentCallError
from autograder.testkit import checks


class FakeSession:
    """Stands in for a worker session: counts fresh processes and answers ``f(x)`` with ``x + 1`` (or a wrong value)."""

    def __init__(self, events: list, wrong: bool = False) -> None:
        self.events, self.wrong, self.processes, self.exchanges = events, wrong, 0, []

    def fresh(self, module: str) -> None:
        self.processes += 1
        self.events.append(("fresh",))

    def call(self, module: str, func: str, args: tuple, kwargs: dict, seconds: float, shown: str):
        self.events.append(("call", args[0]))
        if args[0] < 0:
            raise StudentCallError(f"{shown} raised ValueError: negative", "raised", "ValueError",
                                   raised_as=("ValueError", "Exception", "BaseException"))
        return args[0] + (2 if self.wrong else 1)


def _spec(name: str, func) -> runner.TestSpec:
    return runner.TestSpec(Path("t.py"), name, 1.0, True, func)


@pytest.fixture
def judged(monkeypatch):
    events: list = []
    real = checks.difference

    def difference(got, expected, tol=checks.FLOAT64):
        events.append(("judge", got))
        return real(got, expected, tol)

    monkeypatch.setattr(checks, "difference", difference)
    return events


def _run(events: list, wrong: bool, tests: dict):
    session = FakeSession(events, wrong)
    env = {"m": StudentModule(session, "m", 1.0)}
    specs = [_spec(name, func) for name, func in tests.items()]
    return session, runner.run_tests(specs, env, "m", fresh=lambda: session.fresh("m"))


def test_every_student_call_comes_before_any_judgement(judged) -> None:
    def one(m):
        checks.expect_equal(m.f(1), 2)

    def two(m):
        checks.expect_equal(m.f(2), 3)
        checks.expect_equal(m.f(3), 4)

    session, results = _run(judged, wrong=True, tests={"one": one, "two": two})
    kinds = [e[0] for e in judged]
    assert [r.passed for r in results] == [False, False]
    assert kinds.index("judge") > max(i for i, k in enumerate(kinds) if k == "call"), judged
    assert [e for e in judged if e[0] == "call"] == [("call", 1), ("call", 2), ("call", 3)]  # recorded once, replayed
    assert session.processes == 3  # a fresh process before each test, and one more before judging starts


def test_a_call_the_recording_pass_did_not_reach_runs_live_in_a_fresh_process(judged) -> None:
    def stops_early(m):
        try:
            checks.expect_equal(m.f(1), 2)
        except checks.CheckFailure:  # only once judged: the recording pass never gets here
            assert m.f(10) == 11, "second call"

    session, (result,) = _run(judged, wrong=True, tests={"stops_early": stops_early})
    assert [e for e in judged if e[0] == "call"] == [("call", 1), ("call", 10)]
    assert judged.index(("call", 10)) > judged.index(("call", 1)) and judged[judged.index(("call", 10)) - 1] == ("fresh",)
    assert not result.passed and "second call" in result.message


def test_errors_are_replayed_as_they_were_raised(judged) -> None:
    def raises(m):
        m.f(-1)

    _, (result,) = _run(judged, wrong=False, tests={"raises": raises})
    assert not result.passed and "raised ValueError: negative" in result.message
    assert [e for e in judged if e[0] == "call"] == [("call", -1)]

    def raises_a_value_error(m):  # judged on the replayed error: what it is an instance of is kept on the tape
        try:
            m.f(-1)
        except StudentCallError as exc:
            assert exc.raised_a("ValueError") and exc.raised_a("Exception") and not exc.raised_a("TypeError")

    _, (result,) = _run(judged, wrong=False, tests={"raises_a_value_error": raises_a_value_error})
    assert result.passed, result.message


def test_the_judged_value_is_the_one_that_came_back_even_if_the_test_changed_it(judged) -> None:
    import numpy as np

    class ArraySession(FakeSession):
        def call(self, module, func, args, kwargs, seconds, shown):
            self.events.append(("call", 0))
            return np.arange(3.0)

    def mutates(m):
        got = m.f(0)
        checks.expect_equal(got, np.arange(3.0))
        got += 100  # in place: must not change what the judging pass sees

    session = ArraySession(judged)
    (result,) = runner.run_tests([_spec("mutates", mutates)], {"m": StudentModule(session, "m", 1.0)}, "m", fresh=lambda: None)
    assert result.passed, result.message


def test_what_the_tapes_of_a_problem_keep_is_bounded() -> None:
    """A reply that would take the problem's kept replies past the budget is not kept: its call fails, in both passes,
    with a message that says so; the calls before it keep their values."""
    import numpy as np

    from autograder.grading.proxy import Tape, TapeBudget

    budget = TapeBudget(limit=3 << 20)
    first, second = Tape(budget=budget), Tape(budget=budget)
    kept = first.record("a", lambda: np.zeros(2 << 20, dtype=np.uint8), "m.f(1)")
    assert kept.nbytes == 2 << 20
    with pytest.raises(StudentCallError, match=r"m\.f\(2\) returned 2\.0 MB; with what this problem's earlier calls returned, "
                                               r"that is more than the 3 MB the grader keeps") as err:
        second.record("b", lambda: np.zeros(2 << 20, dtype=np.uint8), "m.f(2)")
    assert err.value.kind == "resource" and budget.used < 3 << 20
    second.recording = first.recording = False
    assert first.replay("a", lambda: None).nbytes == 2 << 20
    with pytest.raises(StudentCallError, match="more than the 3 MB"):
        second.replay("b", lambda: None)


def test_a_call_answered_from_the_tape_is_not_described_again_and_one_that_runs_live_is(judged, monkeypatch) -> None:
    from autograder.testkit import calls

    described, shown = [], []
    real = calls.describe_call

    def describe_call(module, func, args, kwargs):
        described.append(args[0])
        return real(module, func, args, kwargs)

    monkeypatch.setattr(calls, "describe_call", describe_call)

    def stops_early(m):
        try:
            checks.expect_equal(m.f(1), 2)
        except checks.CheckFailure:  # only once judged: this call was never recorded
            m.f(10)

    class Shown(FakeSession):
        def call(self, module, func, args, kwargs, seconds, said):
            shown.append(said)
            return super().call(module, func, args, kwargs, seconds, said)

    session = Shown(judged, wrong=True)
    runner.run_tests([_spec("stops_early", stops_early)], {"m": StudentModule(session, "m", 1.0)}, "m",
                     fresh=lambda: session.fresh("m"))
    assert described == [1, 10], described  # f(1) once as it ran; its replay, nothing; f(10) as it ran live
    assert shown == ["m.f(1)", "m.f(10)"], shown


class MeteredSession(FakeSession):
    """Answers a metered call with its value and a cost."""

    def call(self, module, func, args, kwargs, seconds, shown, meter=None, **_):
        value = super().call(module, func, args, kwargs, seconds, shown)
        return (value, {"cpu_seconds": 0.1}) if meter is not None else value


def test_a_metered_call_asked_to_run_fresh_starts_a_fresh_process_first_and_is_judged_from_the_tape(judged) -> None:
    def read_twice(m):
        m.f(1)
        value, cost = m.f.metered((2,), {}, {"work": False}, fresh=True)
        checks.expect_equal(value, 3)

    session = MeteredSession(judged)
    (result,) = runner.run_tests([_spec("read_twice", read_twice)], {"m": StudentModule(session, "m", 1.0)}, "m",
                                 fresh=lambda: session.fresh("m"))
    assert result.passed, result.message
    calls_and_fresh = [e for e in judged if e[0] in ("call", "fresh")]
    # the test's own fresh process, its first call, a fresh process for the metered one; then the end of the
    # recording pass; the judging pass makes no call
    assert calls_and_fresh == [("fresh",), ("call", 1), ("fresh",), ("call", 2), ("fresh",)]
