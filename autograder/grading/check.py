"""The student's self-check: public tests on their own modules, on the sandbox or the portable path.

Shared by ``python -m autograder check`` and ``autograder.check()`` in a notebook. A self-check runs
the student's own code, so as root (Colab) it switches no uid, makes nothing private and leaves nothing
behind; where the Linux sandbox cannot run it takes the portable path (``sandbox.portable``).
"""

from __future__ import annotations

import difflib
import os
import queue
import re
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from ..expected import records
from ..model import manifest
from ..model.manifest import Assignment
from ..model.scores import GradeReport, ProblemResult
from ..sandbox import WorkerSession
from ..sandbox.policy import portable_reason
from . import grader, worker_memory
from .time_rules import problem_budget


def run(folder: Path, assignment: Assignment | None = None, modules: list[str] | None = None,
        session: WorkerSession | Sequence[WorkerSession] | None = None, workers: int | None = None) -> GradeReport:
    """The public tests of ``modules`` (default: all) on the modules in ``folder``.

    Problems are graded in parallel, one per worker, where the machine has more than one core (``workers``: how many;
    default ``parallel_workers``); the report is the same as one worker's, problems in the assignment's order.
    ``session``: one from ``open_session``, or several from ``open_sessions`` (the notebook keeps them between checks).
    """
    assignment = assignment or manifest.load()
    chosen = [p for p in assignment.problems if not modules or p.module in modules]
    pool = list(session) if isinstance(session, Sequence) else [session] if session is not None else []
    # On the portable path the grading process runs beside its checking children, each of which imports torch: on two
    # idle cores a second child took the same wall for 1.68x the CPU (docs/measurements.md), so it keeps a core.
    reserved = 1 if not pool and portable_reason() else 0
    count = min(len(chosen), len(pool) if pool else workers or parallel_workers(len(chosen), reserved))
    if count > 1:
        return _run_in_parallel(Path(folder), assignment, chosen, pool[:count], count)
    own = [] if pool or portable_reason() else open_sessions(assignment, 1)
    use = (pool or own or [None])[0]
    try:
        report = grader.grade(
            Path(folder), assignment, grader.Purpose.SELF_CHECK, modules=[p.module for p in chosen], session=use
        )
        report.notes += slow_calls(use.exchanges) if use is not None else []
    finally:
        for each in own:
            each.close()
    return report


# A student function whose calls ran this share of its per-call limit in all (less what they waited for a CPU) is
# named: a student should hear before grading that a form is slow (a loop over tokens, say), as the hidden tests may
# call it on larger inputs. The reference's functions take a few tenths of a second in all.
SLOW_SHARE = 0.3


def slow_calls(exchanges: Sequence) -> list[str]:
    """A note per student function whose calls ran ``SLOW_SHARE`` of its limit or more in all (calls that were stopped
    are left out: their tests already say so)."""
    found: dict[tuple[str, str], list] = {}
    for exchange in exchanges:
        if exchange.op == "call" and not exchange.stopped:
            found.setdefault((exchange.module, exchange.func), []).append(exchange)
    notes = []
    for (module, func), calls in found.items():
        ran = [max(c.seconds - c.waited, 0.0) for c in calls]
        limit = calls[0].limit
        if sum(ran) >= SLOW_SHARE * limit:
            notes.append(
                f"{module}.{func} was slow: {len(calls)} call(s) ran {sum(ran):.1f} s in all, the slowest "
                f"{max(ran):.1f} s "
                f"of the {limit:g} s a call may take. Hidden tests may call it on larger inputs, where a slow form "
                "runs out of time."
            )
    return notes


def parallel_workers(problems: int, reserved: int = 0) -> int:
    """How many problems a self-check grades at once: one per idle core this process may use (its cores less the
    last minute's load and ``reserved``), at most one per problem. Each worker imports torch, a few seconds of one
    core: on a busy machine a second worker only competes with the first (measured on a shared two-core machine:
    bench_check_parallel.py)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # macOS and Windows
        cores = os.cpu_count() or 1
    try:
        busy = round(os.getloadavg()[0])
    except (AttributeError, OSError):  # Windows has no load average
        busy = 0
    return max(1, min(cores - busy - reserved, problems))


def _run_in_parallel(
    folder: Path, assignment: Assignment, chosen: list, pool: list[WorkerSession], count: int
) -> GradeReport:
    """Grade ``chosen`` problems on ``count`` workers, each taking the next problem as it finishes one (longest
    first)."""
    start = time.perf_counter()
    records.preload([p.module for p in chosen])  # recorded once, here, rather than by several threads at once
    tests = grader.load_all_tests(assignment, include_hidden=False)
    portable = not pool and bool(portable_reason())
    own = not pool and not portable
    if own:
        pool = open_sessions(assignment, count)
    longest_first = sorted(chosen, key=problem_budget, reverse=True)  # so that no long problem is left for last
    waiting: queue.Queue = queue.Queue()
    # A sandbox worker takes one problem after another; on the portable path each group has its own child, started
    # once (a child per problem would import torch once per problem).
    for group in _groups(longest_first, count) if portable else [[p] for p in longest_first]:
        waiting.put([p.module for p in group])
    done: list[GradeReport] = []
    failures: list[BaseException] = []

    def work(session: WorkerSession | None) -> None:
        while not failures:
            try:
                modules = waiting.get_nowait()
            except queue.Empty:
                return
            try:
                report = grader.grade(
                    folder, assignment, grader.Purpose.SELF_CHECK, modules=modules, session=session, tests=tests
                )
                report.notes += slow_calls(session.exchanges) if session is not None else []
                done.append(report)
            except BaseException as exc:  # noqa: BLE001 - raised again below, in the caller's thread
                failures.append(exc)

    threads = [threading.Thread(target=work, args=(pool[i] if pool else None,), daemon=True) for i in range(count)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        if own:
            for session in pool:
                session.close()
    if failures:
        raise failures[0]
    return _merged(str(folder), done, [p.module for p in chosen], time.perf_counter() - start)


def _groups(problems: list, count: int) -> list[list]:
    """``problems`` (longest first) dealt into ``count`` groups of about equal budget."""
    groups: list[list] = [[] for _ in range(count)]
    for problem in problems:
        min(groups, key=lambda g: sum(problem_budget(p) for p in g)).append(problem)
    return [g for g in groups if g]


def _merged(submission: str, reports: list[GradeReport], order: list[str], seconds: float) -> GradeReport:
    """One report of the partial reports, problems in ``order``, as one run over all of them would have written it."""
    found = {p.module: p for r in reports for p in r.problems}
    problems: list[ProblemResult] = [found[m] for m in order]
    reports = sorted(reports, key=lambda r: min((order.index(p.module) for p in r.problems), default=len(order)))
    notes = list(dict.fromkeys(n for r in reports for n in r.notes))
    staff_notes = list(dict.fromkeys(n for r in reports for n in r.staff_notes))
    fingerprint = {k: v for r in reports for k, v in r.fingerprint.items()}
    return GradeReport(submission, problems, notes, seconds, staff_notes, fingerprint)


def open_session(assignment: Assignment) -> WorkerSession | None:
    """A sandbox worker (torch imported once) for many self-checks, as a notebook runs them; None on the portable path.

    Each module still runs in a fresh child of the worker; close it with ``session.close()``.
    """
    if portable_reason():
        return None
    return WorkerSession(memory_mb=worker_memory.choose(assignment).mb, start_now=True, self_check=True)


def open_sessions(assignment: Assignment, count: int | None = None) -> list[WorkerSession]:
    """``count`` workers (default: ``parallel_workers`` for every problem), started together, for parallel self-checks;
    [] on the portable path (each run there starts its own children)."""
    if portable_reason():
        return []
    count = count or parallel_workers(len(assignment.problems))
    memory = worker_memory.choose(assignment).mb
    sessions: list[WorkerSession] = []
    try:
        for _ in range(count):
            sessions.append(WorkerSession(memory_mb=memory, start_now=True, self_check=True))
    except BaseException:
        for session in sessions:  # the caller never gets them to close
            session.close()
        raise
    return sessions


def verdict(report: GradeReport, assignment: Assignment) -> str:
    """What the result means for the grade, in words: all passed or how many failed, and what the hidden tests carry."""
    tests = [t for p in report.problems for t in p.tests]
    unjudged = len(report.grader_faults)
    failed = sum(not t.passed for t in tests) - unjudged
    worth = {p.module: p.points for p in assignment.problems}
    public = sum(p.max_points for p in report.problems)
    total = sum(worth[p.module] for p in report.problems)
    whose = "this problem's" if len(report.problems) == 1 else "these problems'"
    share = (f"The public tests carry {public:g} of {whose} {total:g} points; the hidden tests, run on Gradescope "
             "after you submit, carry the rest.")
    if unjudged:
        fails = f"; {failed} of the others fail" if failed else ", and all the others pass"
        return (f"{unjudged} of {len(tests)} public tests could not be judged, a fault of the grader's files and not "
                f"of your code (see above){fails}. {share}")
    if failed == 0:
        return f"All {len(tests)} public tests pass. {share} Passing the public tests does not guarantee full marks."
    return f"{failed} of {len(tests)} public tests fail (see above). {share}"


def unknown_problem(name: object, modules: list[str]) -> str:
    """What to say when ``name`` is not one of ``modules``: the problem it probably means, then the list to choose
    from."""
    text = str(name)
    choose = "choose from " + ", ".join(f"{m!r}" for m in modules)
    number = re.fullmatch(r"\s*(?:q|p|problem|ex|exercise|question)?[\s_-]*(\d+)\s*", text, re.IGNORECASE)
    if number and 1 <= int(number.group(1)) <= len(modules):
        meant = modules[int(number.group(1)) - 1]
        return (f"unknown problem {text!r}: did you mean {meant!r} (problem {number.group(1)})? Problems are named by "
                f"module; {choose}")
    plain = text.strip().lower().removesuffix(".py").replace("-", "_").replace(" ", "_")
    close = difflib.get_close_matches(plain, modules, n=1, cutoff=0.6)
    if plain in modules or close:
        meant = plain if plain in modules else close[0]
        return f"unknown problem {text!r}: did you mean {meant!r}? {choose[0].upper()}{choose[1:]}"
    return f"unknown problem {text!r}; {choose}"
