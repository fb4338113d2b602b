"""`run_test` records, on a failed test, the known mistakes whose hints its message shows; `run_tests` names a test
whose judging pass made a live call."""

from pathlib import Path

import pytest

from autograder.expected import records
from autograder.expected.store import decode
from autograder.grading import runner
from autograder.model import manifest
from autograder.model.scores import NO_EXPECTED
from autograder.staff import recording, solutions
from autograder.testkit.calls import Call
from autograder.testkit.checks import CheckFailure
from autograder.testkit.inputs import randn

Q, K = randn(3, 2, seed=1), randn(4, 2, seed=2)


@pytest.fixture(autouse=True)
def recorded(monkeypatch):
    """The expected values of this file's call, recorded here as ``build`` records them (reference and mistakes)."""
    recorder = recording.Recorder("qkv_arithmetic")
    recorder.expected("attention_scores", (Q, K), {"scale": 0.5})
    recorder.student("attention_scores", (Q, K), {"scale": 0.5})
    real = records.store
    monkeypatch.setattr(records, "store", lambda module: recorder.store if module == "qkv_arithmetic" else real(module))


class Answers:
    """A stand-in for a student's function that returns what a given implementation returns."""

    module, func = "qkv_arithmetic", "attention_scores"

    def __init__(self, impl):
        self.impl = impl

    def __call__(self, *args, **kwargs):
        return decode(recording._run(self.impl, args, kwargs))


def mistake(name):
    return next(v for v in solutions.mistakes("qkv_arithmetic") if v.name == name)


def spec(func):
    return runner.TestSpec(Path("t.py"), "t", 1.0, False, func)


def scale_ignored():
    return Answers(mistake("scale_ignored").load().attention_scores)


def test_a_failure_with_a_hint_records_that_mistake():
    result = runner.run_test(spec(lambda: Call(scale_ignored(), Q, K, scale=0.5).matches_reference()), {}, "qkv_arithmetic")
    assert not result.passed and f"Hint: {mistake('scale_ignored').hint}" in result.message
    assert result.mistakes == {"scale_ignored": mistake("scale_ignored").hint}
    assert result.details["Hint"] == mistake("scale_ignored").hint and result.details["Called"].startswith("qkv_arithmetic.attention_scores(")


def test_a_hint_the_final_message_drops_is_not_recorded():
    def rewrapped():
        try:
            Call(scale_ignored(), Q, K, scale=0.5).matches_reference()
        except CheckFailure:
            raise CheckFailure("the scores are wrong") from None

    result = runner.run_test(spec(rewrapped), {}, "qkv_arithmetic")
    assert not result.passed and result.mistakes == {}


def test_a_passing_test_records_nothing_even_after_a_hint_was_offered():
    def recovers():
        call = Call(scale_ignored(), Q, K, scale=0.5)
        assert call.hints(call.result(), call.reference(), call.tolerance(None)) == [mistake("scale_ignored").hint]

    result = runner.run_test(spec(recovers), {}, "qkv_arithmetic")
    assert result.passed and result.mistakes == {}
    reference = Answers(solutions.reference("qkv_arithmetic").attention_scores)
    assert runner.run_test(spec(lambda: Call(reference, Q, K, scale=0.5).matches_reference()), {}, "qkv_arithmetic").mistakes == {}


@pytest.mark.parametrize("hidden", [False, True])
def test_the_run_decides_what_a_failing_test_reveals(hidden):
    """Public tests show the expected value; hidden ones never do, whatever the door (both passes of run_tests)."""
    from autograder.testkit import checks

    def test_value():
        checks.expect_equal(7, 123456789)

    spec = runner.TestSpec(Path("hidden.py" if hidden else "public.py"), "value", 1.0, hidden, test_value)
    (result,) = runner.run_tests([spec], {}, "m")
    assert not result.passed and "got 7" in result.message
    assert ("123456789" in result.message) is not hidden, result.message


def test_tests_the_manifest_cannot_read_from_their_decorators_are_refused(tmp_path):
    folder = tmp_path / "qkv_arithmetic"
    (folder / "tests").mkdir(parents=True)
    (folder / "tests" / "public.py").write_text(
        "from autograder.testkit import test_case\n\n\n@test_case(points=1)\ndef test_a(m):\n    pass\n\n"
        "def _b(m):\n    pass\n\ntest_b = test_case(points=2)(_b)  # not a decorator: the manifest does not see its points\n")
    (folder / "problem.yaml").write_text("title: T\nlimits: {call_seconds: 5}\ntests: {public: [tests/public.py], hidden: []}\n")
    problem = manifest.load_problem(folder)
    assert problem.points == 1
    with pytest.raises(manifest.ManifestError, match=r"worth 3 points.*say 1.*@test_case\(points=\.\.\.\) decorator"):
        runner.load_tests(problem, include_hidden=True)


def test_a_failed_call_keeps_its_kind_so_reports_can_count_timeouts():
    from autograder.sandbox.errors import TIMEOUT, StudentCallError

    def stopped():
        raise StudentCallError("qkv_arithmetic.qkv(...) did not finish within the time limit of 5 s and was stopped.", TIMEOUT)

    result = runner.run_test(spec(stopped), {}, "qkv_arithmetic")
    assert not result.passed and result.failure == TIMEOUT
    assert runner.run_test(spec(lambda: None), {}, "qkv_arithmetic").failure == ""
    assert runner.run_test(spec(lambda: Call(scale_ignored(), Q, K, scale=0.5).matches_reference()), {}, "qkv_arithmetic").failure == ""


def test_a_missing_record_fails_only_the_test_that_needed_it_as_the_grader_s_fault():
    unrecorded = randn(5, 2, seed=99)  # inputs no recording ever saw

    def needs_a_missing_record():
        Call(Answers(solutions.reference("qkv_arithmetic").attention_scores), unrecorded, K).matches_reference()

    reference = Answers(solutions.reference("qkv_arithmetic").attention_scores)
    specs = [spec(needs_a_missing_record), spec(lambda: Call(reference, Q, K, scale=0.5).matches_reference())]
    missed, judged = runner.run_tests(specs, {}, "qkv_arithmetic")
    assert not missed.passed and missed.failure == NO_EXPECTED and "could not be judged" in missed.message
    assert "qkv_arithmetic.attention_scores" in missed.message and judged.passed and judged.failure == ""


class Counted:
    """A guard that answers each call with ``answer(args)`` and counts the calls it ran."""

    def __init__(self, answer):
        self.answer, self.ran = answer, 0

    def call(self, session, worker_name, module, func, args, kwargs, seconds, shown, meter=None):
        self.ran += 1
        return self.answer(args)


def _judged_early(test, answer) -> tuple[list[str], int]:
    from autograder.grading.proxy import StudentFunction

    guard = Counted(answer)
    func = StudentFunction(None, "m", "f", 5.0, "m", guard)
    told = []
    runner.run_tests([runner.TestSpec(Path("t.py"), "bare", 1.0, False, lambda: test(func))], {}, "m",
                     judged_early=lambda s: told.append(s.name))
    return told, guard.ran


def test_a_bare_assert_on_a_students_result_is_named_as_judged_before_the_calls_were_over():
    from autograder.testkit import checks

    def bare(f):
        assert f(1) == 2  # judged in the first pass: a wrong answer stops it before the next call
        f(2)

    def deferred(f):
        checks.expect_equal(f(1), 2)
        f(2)

    assert _judged_early(bare, lambda args: args[0] + 1) == ([], 2)  # right answers: both passes reach every call
    assert _judged_early(bare, lambda args: 0) == (["bare"], 1)  # the first pass judged f(1) and never made f(2)
    assert _judged_early(deferred, lambda args: 0) == ([], 2)


def test_arithmetic_on_a_student_s_nan_or_inf_warns_nothing_on_the_grader_s_stderr():
    import warnings

    import numpy as np

    def test_value():
        got = np.array([np.inf, np.nan])
        assert not np.isfinite((got - got) @ np.ones(2))  # "invalid value encountered" outside the run's errstate

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (result,) = runner.run_tests([runner.TestSpec(Path("t.py"), "nan", 1.0, False, test_value)], {}, "m")
    assert result.passed, result.message
