"""What several commands share: checking the problems asked for on the command line."""

from __future__ import annotations

import sys

from ..grading.check import unknown_problem
from ..model import manifest


def known_problems(assignment: manifest.Assignment, asked: list[str] | None) -> list[str] | None:
    """The ``-p`` modules if all exist (``[]`` when none was asked); None after explaining an unknown one."""
    unknown = [m for m in asked or [] if m not in assignment.modules]
    if unknown:
        print(f"error: {unknown_problem(unknown[0], assignment.modules)}", file=sys.stderr)
        return None
    return list(asked or [])
