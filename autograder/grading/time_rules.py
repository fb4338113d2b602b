"""How long a submission may take: per call, per function, per problem, per submission.

- Per call: its problem's ``limits.call_seconds`` of wall clock; then the call is stopped.
- Per function: a function whose call was stopped is not called again (a hang costs one limit, not one per test).
- Per problem: all calls into its module together get ``BUDGET_FACTOR`` times the call limit, a call
  that is stopped or that crashes the worker counting as the full limit (so the budget also bounds
  the worker restarts a module causes; what that call left of its limit pays for the module's re-import
  after the restart); then the module's remaining calls are not run.
- Per submission: a deadline well ahead of Gradescope's overall timeout (set when grading starts on
  Gradescope). The rules above keep every submission far below it, so reaching it means the machine is
  slow: the calls it refuses say so, and that it is not the student's fault.

``time_bound`` states the worst case; ``make gradescope`` and bench/bench_call_headroom.py measure it.
"""

from __future__ import annotations

import os
import time
from typing import Any

from ..model.manifest import Assignment, GradescopeSettings, Problem
from ..sandbox.session import StudentCallError, WorkerSession

BUDGET_FACTOR = 4  # > 3: three crashing calls of one function still leave the problem's other functions graded
RESTART_SECONDS = 5.0  # a worker's start (its torch import) at 0.5 CPU: 3-5 s measured
DEADLINE_FRACTION = 0.8  # of Gradescope's overall timeout: leaves the last call and otter's results.json a minute and more
DEADLINE_ENV = "AUTOGRADER_DEADLINE"  # epoch seconds; run_otter.py sets it, otter's kernel inherits it


def problem_budget(problem: Problem) -> float:
    """Seconds all calls into ``problem``'s module may take together."""
    return BUDGET_FACTOR * problem.limits.call_seconds


def time_bound(assignment: Assignment, restart_seconds: float = RESTART_SECONDS) -> float:
    """Worst-case seconds spent in student code and worker restarts for one submission.

    The first start, then per problem: its budget, one last call that may overrun it, a restart
    after each call that counted as the full limit (at most BUDGET_FACTOR of them: a crash, or a
    timeout the worker could not absorb) and one when switching modules. The grader's own work
    (reference values, hints) comes on top.
    """
    per_problem = [problem_budget(p) + p.limits.call_seconds + (BUDGET_FACTOR + 1) * restart_seconds for p in assignment.problems]
    return restart_seconds + sum(per_problem)


def describe(assignment: Assignment) -> str:
    """The rules in one line, for the staff's log."""
    calls = ", ".join(f"{p.module} {p.limits.call_seconds:g} s" for p in assignment.problems)
    return (f"per call: {calls}; a function stopped once is not called again; per problem: {BUDGET_FACTOR} x its call limit; "
            f"per submission: no call after {DEADLINE_FRACTION:.0%} of the {assignment.gradescope.timeout_minutes:g}-minute timeout")


def start_clock(settings: GradescopeSettings) -> None:
    """Fix this submission's deadline from Gradescope's timeout; processes started from here on inherit it."""
    os.environ[DEADLINE_ENV] = repr(time.time() + DEADLINE_FRACTION * settings.timeout_minutes * 60)


def inherited_deadline() -> float | None:
    """The deadline ``start_clock`` set, as a ``time.monotonic()`` value (None when there is none)."""
    try:
        epoch = float(os.environ[DEADLINE_ENV])
    except (KeyError, ValueError):
        return None
    return time.monotonic() + (epoch - time.time())


class CallGuard:
    """Runs calls under the per-function and per-submission rules (the session keeps each problem's budget)."""

    def __init__(self, deadline: float | None = None) -> None:
        self.deadline = deadline
        self.stopped: dict[tuple[str, str], float] = {}
        self.current_test: dict[str, object] = {}  # per module, the test function whose calls run now (see proxy)

    def call(self, session: WorkerSession, worker_name: str, module: str, func: str, args: tuple, kwargs: dict[str, Any],
             seconds: float, shown: str) -> Any:
        """``session.call`` if the rules allow it; a call that is stopped keeps its function from being called again."""
        self.admit(worker_name, func, shown, module)
        try:
            return session.call(worker_name, func, args, kwargs, seconds, shown)
        except StudentCallError as exc:
            if exc.kind == "timeout":
                self.stopped[(worker_name, func)] = seconds
            raise

    def admit(self, worker_name: str, func: str, shown: str, module: str) -> None:
        """Raise ``StudentCallError`` if this call must not run."""
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise StudentCallError(f"{shown} was not run: the autograder ran short of time on this machine. This is a fault of "
                                   "the grader, not of your code: ask the course staff to rerun the autograder.", "deadline")
        seconds = self.stopped.get((worker_name, func))
        if seconds is not None:
            raise StudentCallError(f"{shown} was not run: an earlier call of {module}.{func} ran past its limit of {seconds:g} s "
                                   f"and was stopped, so {func} is not called again.", "skipped")
