"""Run test files (``@test_case`` functions) against the student's module proxies: the grading run's two passes.

What a test may reveal is decided here, for every door: ``testkit.checks.REVEAL`` is on for public tests and off for
hidden ones while each runs, so a hidden test's messages never carry an expected value."""

from __future__ import annotations

import inspect
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..expected.records import MissingExpected
from ..model.manifest import ManifestError, Problem
from ..model.scores import NO_EXPECTED, TestResult
from ..sandbox.errors import SandboxFault, StudentCallError
from ..testkit.calls import collecting_mistakes, mistakes_shown
from ..testkit.checks import DEFERRED, REVEAL
from .proxy import Tape, TapeBudget, on_tape


@dataclass(frozen=True)
class TestSpec:
    """One ``@test_case`` function read from a test file."""

    file: Path
    name: str
    points: float
    hidden: bool
    func: Callable[..., None]


def load_test_file(path: Path, hidden: bool) -> list[TestSpec]:
    """Execute a test file and collect its test cases in definition order."""
    namespace: dict[str, Any] = {"__file__": str(path), "__name__": f"tests_{path.stem}"}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)  # noqa: S102 - staff code
    specs = []
    for value in namespace.values():
        if hasattr(value, "test_func") and hasattr(value, "points") and hasattr(value, "hidden"):
            if value.points is None:
                raise ManifestError(f"{path}: test {value.test_func.__name__} has no points=")
            if bool(value.hidden) != hidden:
                listed = "hidden" if hidden else "public"
                raise ManifestError(
                    f"{path}: test {value.test_func.__name__} has hidden={value.hidden} but the file is listed as "
                    f"{listed}"
                )
            name = value.name or value.test_func.__name__.removeprefix("test_")
            specs.append(TestSpec(path, name, float(value.points), hidden, value.test_func))
    if not specs:
        raise ManifestError(f"{path}: no @test_case functions found")
    return specs


def load_tests(problem: Problem, include_hidden: bool) -> list[TestSpec]:
    """Every test of ``problem``; with hidden tests, their points must be the ones the manifest read from the files."""
    specs = [s for path, hidden in problem.test_files(include_hidden) for s in load_test_file(path, hidden)]
    total = sum(s.points for s in specs)
    if include_hidden and abs(total - problem.points) > 1e-9:
        raise ManifestError(
            f"{problem.folder / 'tests'}: the test files define tests worth {total:g} points, but their "
            f"@test_case decorators read as written say {problem.points:g}: define each test with a "
            "@test_case(points=...) decorator at the top level of its file"
        )
    return specs


def run_tests(specs: list[TestSpec], env: dict[str, Any], problem: str, fresh: Callable[[], None] | None = None,
              started: Callable[[TestSpec], None] | None = None,
              judged_early: Callable[[TestSpec], None] | None = None) -> list[TestResult]:
    """Run a problem's tests so that nothing crosses from one test to the next and no judgement reaches student code.

    First every test runs with its checks deferred, each in a fresh process of the module (``fresh()`` ends the last
    one), recording what the student's calls gave; then that process ends too and each test is judged on what was
    recorded: hints and comparisons that cost time come only after all the student's calls. A call the first pass
    did not reach (its test stopped early) runs live then, in a fresh process. ``started(spec)`` is told as each test
    begins, in either pass (what its calls print is that test's). ``judged_early(spec)`` is told of each test that
    judged before the student's calls were over, giving up that protection: its first pass stopped on a failed
    assertion that no deferred check raises (a bare ``assert`` on a result, say), or its judging pass made a live call.
    """
    with np.errstate(all="ignore"):  # a student's NaN or inf is data to judge, not a warning on the grader's stderr
        return _run_both_passes(specs, env, problem, fresh, started, judged_early)


def _run_both_passes(specs: list[TestSpec], env: dict[str, Any], problem: str, fresh: Callable[[], None] | None,
                     started: Callable[[TestSpec], None] | None,
                     judged_early: Callable[[TestSpec], None] | None) -> list[TestResult]:
    tapes, budget = [], TapeBudget()
    for spec in specs:
        if fresh is not None:
            fresh()
        tape, early = Tape(fresh, budget), False
        if started is not None:
            started(spec)
        token, reveal = (
            DEFERRED.set(True),
            REVEAL.set(not spec.hidden),
        )  # nothing is judged here; nothing hidden is shown either
        try:
            with on_tape(tape):
                _call_test(spec, env)
        except MissingExpected:
            pass  # the second pass fails this test alone, as the grader's fault
        except SandboxFault:
            raise
        except AssertionError as exc:  # a student's call that failed, or a judgement made now, which checks defer
            early = not isinstance(exc, StudentCallError)
        except Exception:  # noqa: BLE001 - judged in the second pass, where the failure is reported
            pass
        finally:
            REVEAL.reset(reveal)
            DEFERRED.reset(token)
        tape.recording = False
        tapes.append((tape, early))
    if fresh is not None:
        fresh()
    results = []
    for spec, (tape, early) in zip(specs, tapes):
        if started is not None:
            started(spec)
        with on_tape(tape):
            results.append(run_test(spec, env, problem))
        if (early or tape.diverged) and judged_early is not None:
            judged_early(spec)
    return results


def _call_test(spec: TestSpec, env: dict[str, Any]) -> None:
    params = inspect.signature(spec.func).parameters
    spec.func(**{p: env if p == "env" else env.get(p) for p in params})


def run_test(spec: TestSpec, env: dict[str, Any], problem: str) -> TestResult:
    """Call one test function with arguments taken from ``env`` by name (a parameter names a module)."""
    token = REVEAL.set(not spec.hidden)
    start = time.perf_counter()
    details: dict[str, str] = {}
    failure = ""
    with collecting_mistakes() as offered:
        try:
            _call_test(spec, env)
            passed, message = True, ""
        except AssertionError as exc:
            passed, message = False, str(exc) or "a check failed"
            details = dict(getattr(exc, "parts", {}))  # a check's labelled lines (a StudentCallError has none)
            failure = str(getattr(exc, "kind", ""))  # a StudentCallError's kind: a report counts timeouts by it
        except MissingExpected as exc:  # the records miss a call this test makes: it cannot be judged, the others can
            passed, failure = False, NO_EXPECTED
            message = (
                f"This test could not be judged: {exc}. It is no fault of your code: the test is judged again once the "
                "grader's files are mended."
            )
        except SandboxFault:
            raise  # the grader's machine failed, not the student: no test may score it
        except Exception as exc:  # noqa: BLE001 - a test must never take the grader down
            where = traceback.extract_tb(exc.__traceback__)[-1]
            passed = False
            message = (f"The test stopped with {type(exc).__name__}: {exc} (in {Path(where.filename).name}, line "
                       f"{where.lineno})")
        finally:
            REVEAL.reset(token)
    mistakes = {} if passed else mistakes_shown(message, offered)
    return TestResult(
        problem,
        spec.name,
        spec.points,
        spec.hidden,
        passed,
        message,
        time.perf_counter() - start,
        mistakes,
        details,
        failure,
    )
