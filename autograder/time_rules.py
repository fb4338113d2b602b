"""How long a submission may take: per call, per function, per problem, per submission.

- Per call: its problem's ``limits.call_seconds`` of wall clock; then the call is stopped.
- Per function: a function whose call was stopped is not called again (a hang costs one limit, not one per test).
- Per problem: all calls into its module together get ``BUDGET_FACTOR`` times the call limit, a stopped
  call counting as the full limit; then the module's remaining calls are not run.
- Per submission: a deadline well ahead of Gradescope's overall timeout (set when grading starts on
  Gradescope). The rules above keep every submission far below it, so reaching it means the machine is
  slow: the calls it refuses say so, and that it is not the student's fault.

``time_bound`` states the worst case; ``make gradescope`` and bench/bench_call_headroom.py measure it.
"""

from __future__ import annotations

import os
import time

from .manifest import Assignment, GradescopeSettings, Problem
from .sandbox.client import StudentCallError

BUDGET_FACTOR = 3
DEADLINE_FRACTION = 0.75  # of Gradescope's overall timeout: leaves otter time to write results.json
DEADLINE_ENV = "AUTOGRADER_DEADLINE"  # epoch seconds; run_otter.py sets it, otter's kernel inherits it


def problem_budget(problem: Problem) -> float:
    """Seconds all calls into ``problem``'s module may take together."""
    return BUDGET_FACTOR * problem.limits.call_seconds


def time_bound(assignment: Assignment, restart_seconds: float) -> float:
    """Worst-case seconds spent in student code and worker restarts for one submission.

    Per problem: its budget plus one last call that may overrun it, and one worker restart per
    stopped call (at most BUDGET_FACTOR + 1) plus one when switching modules. The grader's own
    work (reference values, hints) comes on top.
    """
    return restart_seconds + sum((BUDGET_FACTOR + 1) * (p.limits.call_seconds + restart_seconds) + restart_seconds for p in assignment.problems)


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
    """Refuses the calls the per-function and per-submission rules stop (the per-problem budget is the session's)."""

    def __init__(self, deadline: float | None = None) -> None:
        self.deadline = deadline
        self.stopped: dict[tuple[str, str], float] = {}

    def admit(self, worker_name: str, func: str, shown: str, module: str) -> None:
        """Raise ``StudentCallError`` if this call must not run."""
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise StudentCallError(f"{shown} was not run: the autograder ran short of time on this machine. This is a fault of "
                                   "the grader, not of your code: ask the course staff to rerun the autograder.", "deadline")
        seconds = self.stopped.get((worker_name, func))
        if seconds is not None:
            raise StudentCallError(f"{shown} was not run: an earlier call of {module}.{func} did not finish within its limit of "
                                   f"{seconds:g} s and was stopped, so {func} is not called again.", "skipped")

    def record(self, worker_name: str, func: str, error: StudentCallError, seconds: float) -> None:
        """Remember a function whose call was stopped."""
        if error.kind == "timeout":
            self.stopped[(worker_name, func)] = seconds
