"""The one grading run: (assignment, submission, purpose) -> session -> time rules -> tests -> score records.

Every door goes through ``grade``: ``grade`` and ``grade-all`` (purpose GRADING), ``check`` and the notebook's
``autograder.check()`` (SELF_CHECK), ``validate`` (VALIDATION), and the Gradescope zip's entry point
(``gradescope.entry``: GRADING with Gradescope's deadline and private folders). A door chooses the purpose and its
observers (``observers.Observer``: progress, the run record, results.json written as problems finish); it never
grades differently. What a test may reveal is the run's to decide (``runner.run_test`` sets ``testkit.checks.REVEAL``
per test: public tests show expected values, hidden tests never do).
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from ..expected import records
from ..model import manifest, scores
from ..model.manifest import Assignment, Problem
from ..model.scores import GradeReport, ProblemResult, TestResult
from ..sandbox import HARNESS_ROOT, PortableSession, WorkerSession, describe_portable, policy
from . import submission, worker_memory
from .observers import Observer, Observers
from .proxy import StudentModule
from .runner import TestSpec, load_tests, run_tests
from .time_rules import CallGuard, problem_budget


class Purpose(enum.Enum):
    """Why a submission is graded: it decides the tests and the session."""

    # a student's own code: public tests; no uid switch; the portable path where Linux's sandbox cannot run
    SELF_CHECK = "self-check"
    GRADING = "grading"  # public and hidden tests, the staff sandbox (never the portable path)
    VALIDATION = "validation"  # the tests' own check on the reference, stubs, mistakes, fair variants: as grading

    @property
    def include_hidden(self) -> bool:
        return self is not Purpose.SELF_CHECK


def grade(
    path: Path,
    assignment: Assignment | None = None,
    purpose: Purpose = Purpose.GRADING,
    *,
    modules: list[str] | None = None,
    session: WorkerSession | None = None,
    tests: dict[str, list[TestSpec]] | None = None,
    observers: Iterable[Observer] = (),
    deadline: float | None = None,
    private: tuple[Path, ...] = (HARNESS_ROOT,),
) -> GradeReport:
    """Grade the submission at ``path`` for ``purpose``; never raises for anything the submission contains.

    With ``session`` (see ``reusable_session``) the worker and its torch import serve many submissions,
    and with ``tests`` (see ``load_all_tests``) so do the loaded test files and what they computed ahead.
    ``deadline`` (a ``time.monotonic()`` value) is the submission's last moment to start a call; ``private``
    the grader's folders the sandbox user must not read (for a session the run opens).
    """
    start = time.perf_counter()
    watch = Observers(observers)
    assignment = assignment or manifest.load()
    problems = [p for p in assignment.problems if modules is None or p.module in modules]

    def tests_of(problem: Problem) -> list[TestSpec]:
        return tests[problem.module] if tests is not None else load_tests(problem, purpose.include_hidden)

    portable = policy.portable_reason() if purpose is Purpose.SELF_CHECK and session is None else None
    notes: list[str] = []
    if portable:
        staff_notes = [describe_portable(portable)]
    else:
        memory = worker_memory.choose(assignment)
        staff_notes = [policy.detect().describe(), f"worker memory limit {memory.mb} MB ({memory.reason})"]
        staff_notes += [f"warning: {memory.warning}"] if memory.warning else []
    try:
        located = submission.locate(Path(path), assignment.modules)
    except submission.SubmissionError as exc:
        results = [_unavailable(p, tests_of(p), f"not graded: {exc}", scores.UNREADABLE) for p in problems]
        report = GradeReport(str(path), results, [str(exc)], time.perf_counter() - start, staff_notes)
        watch.run_ended(report)
        return report
    if located.ignored:
        notes.append(
            "ignored (never read or run): "
            + ", ".join(located.ignored[:30])
            + (" ..." if len(located.ignored) > 30 else "")
        )
    owned = session is None
    if owned:
        session = (PortableSession(portable, planned=sum(p.module in located.sources for p in problems)) if portable
                   else WorkerSession(memory_mb=memory.mb, self_check=purpose is Purpose.SELF_CHECK, private=private))
    staged = session.stage(located.sources)
    session.switch(staged)
    try:
        if any(p.module in located.sources for p in problems):
            session.start()  # the worker imports torch while the grader loads the tests (which import it too)
        loaded = {p.module: tests_of(p) for p in problems}
        records.preload([p.module for p in problems])  # the records are open before any student code runs
        results: list[ProblemResult] = []
        guard = CallGuard(deadline=deadline, observer=watch, self_check=purpose is Purpose.SELF_CHECK)
        # Every public test of every problem runs before any hidden one. A hidden test's inputs can leave a trace in
        # the machine that no sandbox wipes (which pages the kernel caches, a counter, a time); run first, no test
        # whose output the student sees can read it.
        public = {p.module: grade_problem(p, [s for s in loaded[p.module] if not s.hidden], session, guard=guard)
                  for p in problems if p.module in located.sources}
        for problem in problems:
            watch.problem_started(problem)
            if problem.module not in located.sources:
                results.append(_unavailable(problem, loaded[problem.module], located.problems[problem.module],
                                            located.kind(problem.module)))
            else:
                hidden = [s for s in loaded[problem.module] if s.hidden]
                results.append(_joined(public[problem.module],
                                       grade_problem(problem, hidden, session, guard=guard) if hidden else None))
            done = results + [
                _unavailable(
                    p, loaded[p.module], "not graded yet: the grader stopped before this problem", scores.NOT_GRADED
                )
                for p in problems[len(results) :]
            ]
            watch.problem_finished(
                results[-1], GradeReport(str(path), done, notes, time.perf_counter() - start, staff_notes)
            )
    finally:
        if owned:
            session.close()
        else:
            session.discard(staged)
    if isinstance(session, WorkerSession):
        staff_notes = [*staff_notes, session.start_note()]
    report = GradeReport(str(path), results, notes, time.perf_counter() - start, staff_notes)
    report.staff_notes += fault_notes(report)
    watch.run_ended(report)
    return report


def fault_notes(report: GradeReport) -> list[str]:
    """What staff must know of the tests the grader could not judge (no recorded expected value): its fault, not the
    student's; the rest of the submission was graded, and these tests are due a regrade once the records are rebuilt."""
    unjudged: dict[str, list[str]] = {}
    for t in report.grader_faults:
        unjudged.setdefault(t.problem, []).append(t.name)
    return [
        f"grader fault ({scores.NO_EXPECTED}): {problem}: {', '.join(names)} could not be judged ({len(names)} "
        f"test{'s' if len(names) > 1 else ''}): the expected value of a call made is not recorded or its file is "
        "damaged; rebuild the expected values and regrade"
        for problem, names in unjudged.items()
    ]


def load_all_tests(assignment: Assignment, include_hidden: bool = True) -> dict[str, list[TestSpec]]:
    """Every problem's tests, loaded once to grade many submissions (as ``validate`` grades every variant).

    Test files therefore keep no state about a submission: module-level values are expected
    values and helpers only.
    """
    return {p.module: load_tests(p, include_hidden) for p in assignment.problems}


def reusable_session(assignment: Assignment) -> WorkerSession:
    """A worker for grading many submissions one after another (each in its own folder and child processes).

    The worker's first process never runs student code; each module runs in a fresh child that is
    killed with everything it started before the next one, and the private /tmp is wiped between
    submissions. Close it with ``session.close()``.
    """
    return WorkerSession(memory_mb=worker_memory.choose(assignment).mb, start_now=True)


def grade_problem(problem: Problem, tests: list[TestSpec], session: WorkerSession, worker_name: str | None = None,
                  guard: CallGuard | None = None,
                  judged_early: Callable[[TestSpec], None] | None = None) -> ProblemResult:
    """Run one problem's tests against its module (staged as ``worker_name``) in ``session``, under the time rules
    (``judged_early``: as in ``runner.run_tests``)."""
    mark = session.output.mark()
    worker_name = worker_name or problem.module
    guard = guard or CallGuard()
    if worker_name not in guard.budgets:  # one budget for all of a problem's tests, graded at once or in two phases
        guard.set_budget(worker_name, problem_budget(problem))
    env = {problem.module: StudentModule(session, problem.module, problem.limits.call_seconds, worker_name, guard)}
    result = ProblemResult(problem.module, problem.title)
    result.tests += run_tests(
        tests,
        env,
        problem.module,
        fresh=lambda: session.fresh(worker_name),
        started=_printing_in(session),
        judged_early=judged_early,
    )
    broken = session.broken.get(worker_name)
    if broken:
        result.status, result.kind = broken.splitlines()[0], scores.IMPORT_FAILED
    session.settle_output()
    shown = session.output.shown()
    result.output, result.hidden_printed, result.staff_output = shown.text, shown.hidden, session.output.since(mark)
    return result


def _printing_in(session: WorkerSession) -> Callable[[TestSpec], None]:
    """Tells ``session`` which test prints from now on (what a hidden test prints is kept for staff, never shown)."""

    def started(spec: TestSpec) -> None:
        session.settle_output()  # what the last test printed is the last test's
        session.output.begin(spec.name, spec.hidden)

    return started


# What a problem's public tests read when its module first failed to import in a hidden test: what it raised there
# may carry that test's inputs, so it is kept for the hidden tests' entries and the staff.
FAILED_IN_HIDDEN = ("the module could not be imported in a hidden test (what it raised is shown with the hidden tests "
                    "when they are shown)")


def _joined(public: ProblemResult, hidden: ProblemResult | None) -> ProblemResult:
    """A problem's result from its public tests' and, graded after every public test, its hidden tests' results: the
    student sees what the public tests printed, of the hidden tests only how much each printed."""
    if hidden is None:
        return public
    joined = ProblemResult(public.module, public.title, tests=public.tests + hidden.tests, status=public.status,
                           output=public.output, kind=public.kind, hidden_printed=hidden.hidden_printed,
                           staff_output=public.staff_output + hidden.staff_output)
    if public.kind == scores.GRADED and hidden.kind != scores.GRADED:
        joined.status, joined.kind = FAILED_IN_HIDDEN, hidden.kind
    return joined


def _unavailable(problem: Problem, tests: list[TestSpec], reason: str, kind: str) -> ProblemResult:
    result = ProblemResult(problem.module, problem.title, status=reason, kind=kind)
    result.tests = [TestResult(problem.module, s.name, s.points, s.hidden, False, reason) for s in tests]
    return result
