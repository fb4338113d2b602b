"""How long a submission may take: per call, per function, per problem, per submission.

Judged from outside: every figure that decides a verdict of time is read where student code cannot reach it. The
grader reads in /proc the CPU time of everything the worker's first process started (each test's process, all its
threads, its children and theirs, running, ended or reaped; ``WorkerProcess.tree_cpu``), never a clock inside the
student's process; the kernel counts it whatever the machine's load.

- Per call: its problem's ``limits.call_seconds``, measured at Gradescope's share of a CPU: the call may use
  ``call_seconds x CPU_SHARE`` seconds of CPU time, then it is stopped; a wall-clock backstop of ``call_seconds x
  WALL_BACKSTOP`` (2: a busy call stopped there first ran on less than a quarter of a CPU) stops a call that sleeps or
  blocks, never more than one limit past its module's budget. (Where /proc cannot say, as on the portable path, the
  limit is ``call_seconds`` of wall clock.)
- Per function: a function whose call was stopped is not called again (a hang costs one limit, not one per test).
- Per problem: all calls into its module together get ``BUDGET_FACTOR`` times the call limit. A call is charged
  its CPU time over ``CPU_SHARE`` or the wall clock it did not spend waiting for a CPU, whichever is more: at
  Gradescope's share both come to its wall clock, on a faster machine a busy call is charged as on Gradescope, and on a
  loaded one the machine's load is not charged. A call that is stopped or that crashes the worker counts as the full
  limit (or what it was charged, if more), and a call's wall-clock backstop never reaches more than its limit past its
  module's budget, as does a reset between tests that has to replace the worker (what a reset takes beyond a second is
  charged too) (so the budget also bounds the worker restarts a module causes; what that call left of its limit pays for
  the module's re-import after the restart); then the module's remaining calls are not run. A call whose module process
  ends (a crash, an exit) or is ended for writing too much costs what it took: the worker lives on and forks a fresh
  process for the next call, unless the grader's own check (as after a reset) finds something of the call left, which
  replaces the worker at the full limit.
- Per submission: a deadline well ahead of Gradescope's overall timeout (set when grading starts on
  Gradescope). The rules above keep every submission far below it, so reaching it means the machine is
  slow: the calls it refuses say so, and that it is not the student's fault.
- A busy machine: a call that used its CPU limit is the student's, whatever the load; so are threads and processes of
  its own that keep it waiting (they spend its CPU time). Only a call stopped by the wall-clock backstop before its CPU
  limit, whose main thread (the one running the call) waited for a CPU at least ``STARVED_SHARE`` of that time
  (``/proc/<pid>/schedstat``, read by the worker's first process) while all it ran got less than a quarter of a CPU,
  was starved by the machine (kind ``busy``;
  ``busy_not_run`` for the calls then not run); so is a budget used up with that share of it spent waiting. When
  grading, the student reads that it is the grader's fault and staff see it among the submissions that need attention;
  a self-check tells the student their own computer was busy and to run the check again. Such a call still scores
  nothing, and the time charged stays as above (the worst case does not move).

``time_bound`` states the worst case; ``make gradescope`` and bench/bench_call_headroom.py measure it.
"""

from __future__ import annotations

import math
import os
import time
from typing import Any, Protocol

from .. import settings
from ..model.manifest import Assignment, GradescopeSettings, Problem
from ..sandbox import Exchange, errors
from ..sandbox.errors import StudentCallError
from ..settings import BUDGET_FACTOR, CPU_SHARE, DEADLINE_FRACTION, GRADER_SECONDS, RESTART_SECONDS, WALL_BACKSTOP
from .observers import Observer

DEADLINE_ENV = settings.AUTOGRADER_DEADLINE.name  # epoch seconds; the zip's entry point sets it when it starts


# A call whose main thread waited for a CPU this share of the time it was given ran on less than a quarter of one: half
# of what Gradescope's container gives (0.5 CPU, which the limits are measured against). The kernel counts a CPU quota's
# throttling as waiting too (measured: a busy loop under a 0.5-CPU quota waits 50% of its time), so on Gradescope every
# call waits about half its time: well under this share.
STARVED_SHARE = 0.75
MACHINE_FAULT = "This is a fault of the grader, not of your code: ask the course staff to rerun the autograder."
OWN_MACHINE_BUSY = (
    "Your computer was too busy with other programs to time it fairly: this says nothing about your code. "
    "Close what else is running and run the check again."
)


def starved(waited: float, seconds: float) -> bool:
    """Whether time that spent ``waited`` of its ``seconds`` waiting for a CPU says the machine, not the code, was
    slow."""
    return seconds > 0 and waited >= STARVED_SHARE * seconds


def stopped_starved(exc: StudentCallError, seconds: float) -> bool:
    """Whether a call stopped at its limit ``seconds`` was starved by the machine: never when it used its CPU limit;
    else when its main thread waited for a CPU ``STARVED_SHARE`` of the wall clock it was given and all it ran together
    got less than the rest of that time (less than a quarter of a CPU): busy threads or processes of its own that
    keep its main thread waiting get the CPU it waits for."""
    limit = exc.limit
    if limit is not None and limit.by_cpu:
        return False
    wall = limit.wall if limit is not None and limit.wall > 0 else seconds
    little_cpu = limit is None or limit.cpu is None or limit.cpu <= (1 - STARVED_SHARE) * wall
    return starved(exc.waited, wall) and little_cpu


def charged(done: Exchange) -> float:
    """What an exchange costs its module's budget: its CPU time at Gradescope's share, or the wall clock it did not
    spend waiting for a CPU, whichever is more (its wall clock where the CPU is not known). One that was stopped costs
    its full limit, or up to its wall-clock backstop when it slept that long (what the grader then takes to stop it
    and clean up is the grader's, slower on a loaded machine)."""
    if done.cpu is None:
        return done.limit if done.stopped else done.seconds
    cost = max(done.cpu / CPU_SHARE, done.seconds - done.waited)
    return max(done.limit, min(cost, WALL_BACKSTOP * done.limit)) if done.stopped else cost


def problem_budget(problem: Problem) -> float:
    """Seconds all calls into ``problem``'s module may take together."""
    return BUDGET_FACTOR * problem.limits.call_seconds


def time_bound(assignment: Assignment, restart_seconds: float = RESTART_SECONDS) -> float:
    """Worst-case seconds spent in student code and worker restarts for one submission.

    The first start, then per problem: its budget, one last call that may overrun it, and at most BUDGET_FACTOR
    worker restarts (``problem_bound`` says why). The grader's own work comes on
    top: recorded values and hints, and stopping a call (milliseconds when the worker answers the interrupt,
    up to ``sandbox.process.INTERRUPT_SECONDS`` before a worker that does not is killed); the deadline rule
    covers a machine slow enough for that to matter.
    """
    return restart_seconds + sum(problem_bound(p, restart_seconds) for p in assignment.problems)


def problem_bound(problem: Problem, restart_seconds: float = RESTART_SECONDS) -> float:
    """One problem's share of ``time_bound``: its budget, one last call, and ``BUDGET_FACTOR`` restarts.

    A call is charged at least the wall clock it did not spend waiting for a CPU (at Gradescope's share its CPU time
    over ``CPU_SHARE`` is its wall clock), and a call's wall-clock backstop never reaches past its module's budget by
    more than its limit (``CallGuard``), so the last call adds at most one limit.

    Restarts (``WorkerSession``, as on Gradescope): switching modules forks a fresh child of the same worker; only an
    exchange that loses the worker (a call stopped or crashed, a reset the grader's check fails) starts a new one, and
    each is charged at least the full limit.
    Every such exchange but the last is followed by an admitted call of the module (a reset needs its module imported
    again), admitted only while less than ``BUDGET_FACTOR`` limits are spent: so at most ``BUDGET_FACTOR`` of them.
    """
    return problem_budget(problem) + problem.limits.call_seconds + BUDGET_FACTOR * restart_seconds


def deadline_seconds(assignment: Assignment) -> float:
    """Seconds from the start of grading after which no call runs: ``DEADLINE_FRACTION`` of Gradescope's timeout."""
    return DEADLINE_FRACTION * assignment.gradescope.timeout_minutes * 60


def room_for_a_problem(assignment: Assignment) -> float:
    """The largest call limit one more problem could have with the worst case still inside the deadline (<= 0: none)."""
    left = deadline_seconds(assignment) - GRADER_SECONDS - time_bound(assignment) - BUDGET_FACTOR * RESTART_SECONDS
    return math.floor(left / (BUDGET_FACTOR + 1) * 10) / 10


def bound_problem(assignment: Assignment) -> str | None:
    """None when the worst case, with ``GRADER_SECONDS`` for the grader's own work, ends before the deadline; else why
    not and which limits to change, for ``validate`` and ``build`` to print."""
    bound, deadline = time_bound(assignment), deadline_seconds(assignment)
    if bound + GRADER_SECONDS <= deadline:
        return None
    over = bound + GRADER_SECONDS - deadline
    per_second = BUDGET_FACTOR + 1  # a second of call limit costs its budget share and the last call's second
    fixed = RESTART_SECONDS + len(assignment.problems) * BUDGET_FACTOR * RESTART_SECONDS
    shares = ", ".join(f"{p.module} {p.limits.call_seconds:g} s -> {problem_bound(p):g} s" for p in assignment.problems)
    minutes = math.ceil((bound + GRADER_SECONDS) / DEADLINE_FRACTION / 60)
    lines = [
        f"the worst case of a submission, {bound:g} s in student code and worker restarts plus {GRADER_SECONDS:g} s "
        f"for the grader's own work, passes the deadline of {deadline:g} s ({DEADLINE_FRACTION:.0%} of the "
        f"{assignment.gradescope.timeout_minutes:g}-minute timeout) by {over:g} s.",
        f"  Each problem costs {BUDGET_FACTOR} x its call limit (its budget) + one last call + {BUDGET_FACTOR} worker "
        f"restarts of {RESTART_SECONDS:g} s: {shares}; plus the first start, {RESTART_SECONDS:g} s.",
    ]
    if fixed + GRADER_SECONDS < deadline:
        cut = math.ceil(over / per_second * 10) / 10
        lines.append(
            f"  To fit: take {cut:g} s off the problems' call limits together (limits.call_seconds in their "
            f"problem.yaml, or problem_defaults in assignment.yaml: each second saves {per_second:g} s), "
            f"or raise gradescope.timeout_minutes in assignment.yaml to {minutes} (and the timeout on Gradescope)."
        )
    else:
        lines.append(f"  The restarts alone take {fixed:g} s for {len(assignment.problems)} problems: raise "
                     f"gradescope.timeout_minutes in assignment.yaml to {minutes} (and the timeout on Gradescope).")
    return "\n".join(lines)


def describe(assignment: Assignment) -> str:
    """The rules in one line, for the staff's log."""
    calls = ", ".join(f"{p.module} {p.limits.call_seconds:g} s" for p in assignment.problems)
    return (
        f"per call: {calls} (CPU time of all it runs at {CPU_SHARE:g} CPU, wall clock up to {WALL_BACKSTOP:g} x); a "
        "function "
        f"stopped once is not called again; per problem: {BUDGET_FACTOR} x its call limit; "
        f"per submission: no call after {DEADLINE_FRACTION:.0%} of the "
        f"{assignment.gradescope.timeout_minutes:g}-minute timeout"
    )


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


class Session(Protocol):
    """What the guard needs of a session (``sandbox.session.WorkerSession`` or ``sandbox.portable.PortableSession``)."""

    exchanges: list[Exchange]

    def call(self, module: str, func: str, args: tuple, kwargs: dict[str, Any], seconds: float, shown: str,
             meter: dict | None = None, backstop: float | None = None) -> Any: ...


class CallGuard:
    """Runs a submission's calls under all four rules: the call limit (the session stops the call), the function stopped
    once, each problem's budget (charged from what the session says each exchange cost) and the submission's
    deadline."""

    def __init__(
        self, deadline: float | None = None, observer: Observer | None = None, self_check: bool = False
    ) -> None:
        self.deadline = deadline
        # Whose machine was too busy: the grader's (staff rerun it), or in a self-check the student's own computer.
        self.busy_fault = OWN_MACHINE_BUSY if self_check else MACHINE_FAULT
        self.observer = (
            observer or Observer()
        )  # told the kind of every call stopped or not run (the run record on Gradescope)
        self.stopped: dict[tuple[str, str], float] = {}
        self.starved: set[tuple[str, str]] = set()  # of ``stopped``: those stopped while the machine was too busy
        self.budgets: dict[str, float] = {}
        self.spent: dict[str, float] = {}
        self.waited: dict[
            str, float
        ] = {}  # per module: of what it was charged, the time its processes waited for a CPU
        self._restart_credit: dict[str, float] = {}
        self._ledger: list[Exchange] | None = None  # the session's exchanges, charged up to ``_charged``
        self._charged = 0

    def set_budget(self, worker_name: str, seconds: float) -> None:
        """Cap the total time of all calls into ``worker_name``'s module."""
        self.budgets[worker_name] = seconds

    def call(self, session: Session, worker_name: str, module: str, func: str, args: tuple, kwargs: dict[str, Any],
             seconds: float, shown: str, meter: dict | None = None) -> Any:
        """``session.call`` if the rules allow it; a call that is stopped keeps its function from being called again."""
        try:
            self._charge_new(session)  # a reset between tests that cost the module time (or the worker) counts first
            self.admit(worker_name, func, shown, module, seconds)
            extra = ({"meter": meter} if meter is not None else {}) | self._backstop(worker_name, seconds)
            try:
                return session.call(worker_name, func, args, kwargs, seconds, shown, **extra)
            finally:
                self._charge_new(session)
        except StudentCallError as exc:
            judged = exc
            if exc.kind == errors.TIMEOUT:
                self.stopped[(worker_name, func)] = seconds
                if stopped_starved(exc, seconds):
                    self.starved.add((worker_name, func))
                    wall = exc.limit.wall if exc.limit is not None and exc.limit.wall > 0 else seconds
                    judged = StudentCallError(
                        f"{exc} Of those {wall:.1f} s it spent {exc.waited:.1f} s waiting for a CPU: this "
                        f"machine was too busy to time it fairly. {self.busy_fault}",
                        errors.BUSY,
                        waited=exc.waited,
                        limit=exc.limit,
                    )
            if judged.kind in (errors.TIMEOUT, errors.BUSY, *errors.NOT_RUN):
                self.observer.call_refused(judged.kind)
            if judged is exc:
                raise
            raise judged from None

    def admit(self, worker_name: str, func: str, shown: str, module: str, seconds: float) -> None:
        """Raise ``StudentCallError`` if this call must not run."""
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise StudentCallError(
                f"{shown} was not run: the autograder ran short of time on this machine. {MACHINE_FAULT}",
                errors.DEADLINE,
            )
        stopped = self.stopped.get((worker_name, func))
        if stopped is not None:
            if (worker_name, func) in self.starved:
                raise StudentCallError(
                    f"{shown} was not run: an earlier call of {module}.{func} was stopped at its limit of "
                    f"{stopped:g} s while this machine was too busy to time it fairly. {self.busy_fault}",
                    errors.BUSY_NOT_RUN,
                )
            raise StudentCallError(
                f"{shown} was not run: an earlier call of {module}.{func} ran past its limit of {stopped:g} s "
                f"and was stopped, so {func} is not called again.",
                errors.SKIPPED,
            )
        budget = self.budgets.get(worker_name)
        spent = self.spent.get(worker_name, 0.0)
        if budget is not None and spent >= budget:
            waited = self.waited.get(worker_name, 0.0)
            if starved(waited, spent):
                raise StudentCallError(
                    f"{shown} was not run: the calls into {module}.py have used up their time budget of "
                    f"{budget:g} s, but {waited:.1f} s of it was spent waiting for a CPU: this machine was too "
                    f"busy to time them fairly. {self.busy_fault}",
                    errors.BUSY_NOT_RUN,
                )
            raise StudentCallError(
                f"{shown} was not run: the calls into {module}.py have used up their time budget of {budget:g} s "
                f"(a call that is stopped counts as the full {seconds:g} s).",
                errors.BUDGET,
            )

    def _backstop(self, worker_name: str, seconds: float) -> dict[str, float]:
        """The wall clock a call may take when its module's budget has less left than ``WALL_BACKSTOP`` x its limit:
        what is left, never less than the limit (so the last call of a problem ends within its budget plus one limit, as
        ``time_bound`` counts); {} for the session's own backstop."""
        budget = self.budgets.get(worker_name)
        if budget is None:
            return {}
        left = budget - self.spent.get(worker_name, 0.0)
        return {"backstop": max(seconds, left)} if left < WALL_BACKSTOP * seconds else {}

    def _charge_new(self, session: Session) -> None:
        """Charge the session's exchanges not charged yet; those before this guard's first call are not its modules'."""
        if session.exchanges is not self._ledger:
            self._ledger, self._charged = session.exchanges, len(session.exchanges)
        self._charge(self._ledger[self._charged:])
        self._charged = len(self._ledger)

    def _charge(self, exchanges: list[Exchange]) -> None:
        """Add what each exchange took to its module's budget: a stopped one counts as its full limit, no more (the time
        the grader then takes to stop it and clean up is the grader's, slower on a loaded machine).

        That full limit also pays for the module's re-import in the fresh process that follows, up to what the
        stopped exchange left unused, so a few crashing calls do not cost the module's other calls their time.
        """
        for done in exchanges:
            self.waited[done.module] = self.waited.get(done.module, 0.0) + min(
                done.waited, done.limit if done.stopped else done.seconds
            )
            if done.stopped:
                self.spent[done.module] = self.spent.get(done.module, 0.0) + charged(done)
                self._restart_credit[done.module] = max(done.limit - done.seconds, 0.0)
                continue
            cost = charged(done)
            covered = min(self._restart_credit.pop(done.module, 0.0), cost) if done.op == "import" else 0.0
            self.spent[done.module] = self.spent.get(done.module, 0.0) + cost - covered
