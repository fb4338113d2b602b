"""The student's self-check: public tests on their own modules, on the sandbox or the portable path.

Shared by ``python -m autograder check`` and ``autograder.check()`` in a notebook. A self-check runs
the student's own code, so as root (Colab) it switches no uid, makes nothing private and leaves nothing
behind; where the Linux sandbox cannot run it takes the portable path (``sandbox.portable``).
"""

from __future__ import annotations

import difflib
import re
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


def unknown_problem(name: object, modules: list[str]) -> str:
    """What to say when ``name`` is not one of ``modules``: the problem it probably means, then the list to choose from."""
    text = str(name)
    choose = "choose from " + ", ".join(f"{m!r}" for m in modules)
    number = re.fullmatch(r"\s*(?:q|p|problem|ex|exercise|question)?[\s_-]*(\d+)\s*", text, re.IGNORECASE)
    if number and 1 <= int(number.group(1)) <= len(modules):
        meant = modules[int(number.group(1)) - 1]
        return f"unknown problem {text!r}: did you mean {meant!r} (problem {number.group(1)})? Problems are named by module; {choose}"
    plain = text.strip().lower().removesuffix(".py").replace("-", "_").replace(" ", "_")
    close = difflib.get_close_matches(plain, modules, n=1, cutoff=0.6)
    if plain in modules or close:
        meant = plain if plain in modules else close[0]
        return f"unknown problem {text!r}: did you mean {meant!r}? {choose[0].upper()}{choose[1:]}"
    return f"unknown problem {text!r}; {choose}"
