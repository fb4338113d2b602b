"""The student's self-check: public tests on their own modules, on the sandbox or the portable path.

Shared by ``python -m autograder check`` and ``autograder.check()`` in a notebook. A self-check runs
the student's own code, so as root (Colab) it switches no uid, makes nothing private and leaves nothing
behind; where the Linux sandbox cannot run it takes the portable path (``sandbox.portable``).
"""

from __future__ import annotations

from pathlib import Path

from ..model import manifest
from ..model.manifest import Assignment
from ..model.scores import GradeReport
from ..sandbox.policy import portable_reason
from ..sandbox.session import WorkerSession
from . import grader, worker_memory


def run(folder: Path, assignment: Assignment | None = None, modules: list[str] | None = None,
        session: WorkerSession | None = None) -> GradeReport:
    """The public tests of ``modules`` (default: all) on the modules in ``folder``; ``session`` from ``open_session`` serves many."""
    assignment = assignment or manifest.load()
    return grader.grade(Path(folder), assignment, grader.Purpose.SELF_CHECK, modules=modules or None, session=session)


def open_session(assignment: Assignment) -> WorkerSession | None:
    """A sandbox worker (torch imported once) for many self-checks, as a notebook runs them; None on the portable path.

    Each module still runs in a fresh child of the worker; close it with ``session.close()``.
    """
    if portable_reason():
        return None
    return WorkerSession(memory_mb=worker_memory.choose(assignment).mb, start_now=True, self_check=True)


def verdict(report: GradeReport, assignment: Assignment) -> str:
    """What the result means for the grade, in words: all passed or how many failed, and what the hidden tests carry."""
    tests = [t for p in report.problems for t in p.tests]
    failed = sum(not t.passed for t in tests)
    worth = {p.module: p.points for p in assignment.problems}
    public = sum(p.max_points for p in report.problems)
    total = sum(worth[p.module] for p in report.problems)
    whose = "this problem's" if len(report.problems) == 1 else "these problems'"
    share = (f"The public tests carry {public:g} of {whose} {total:g} points; the hidden tests, run on Gradescope "
             "after you submit, carry the rest.")
    if failed == 0:
        return f"All {len(tests)} public tests pass. {share} Passing the public tests does not guarantee full marks."
    return f"{failed} of {len(tests)} public tests fail (see above). {share}"
