"""What several commands share: checking the problems asked for, the count of jobs and where outputs go."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..grading.check import unknown_problem
from ..model import manifest
from ..reports.terminal import safe


def known_problems(assignment: manifest.Assignment, asked: list[str] | None) -> list[str] | None:
    """The ``-p`` modules if all exist (``[]`` when none was asked); None after explaining an unknown one."""
    unknown = [m for m in asked or [] if m not in assignment.modules]
    if unknown:
        print(f"error: {unknown_problem(unknown[0], assignment.modules)}", file=sys.stderr)
        return None
    return list(asked or [])


def at_least_one(text: str) -> int:
    """An argparse type: a whole number of 1 or more (``--jobs``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is too few: at least 1")
    return value


def unwritable(out: Path, name: str, flag: str = "--out") -> str | None:
    """Why the file ``out`` (usually called ``name``) cannot be written: it is a folder, a folder on its way is a file,
    or may not be written; else None. Checked before any work, so that nothing graded is lost to a typo."""
    if out.is_dir():
        return f"{flag} {out} is a folder; pass the file to write, e.g. {flag} {out / name}"
    where = out.parent
    while not where.exists() and where != where.parent:
        where = where.parent
    if not where.is_dir():
        return f"{flag} {out}: {where} is a file, not a folder; pass {flag} inside a folder"
    if not os.access(where, os.W_OK | os.X_OK):
        return f"{flag} {out}: {where} may not be written by this user; pass {flag} somewhere you can write"
    return None


def refuse_unwritable(out: Path, name: str) -> bool:
    """Say on stderr why ``--out`` ``out`` cannot be written, if it cannot (the command then exits 2)."""
    why = unwritable(out, name)
    if why is not None:
        print(safe(f"error: {why}"), file=sys.stderr)
    return why is not None
