"""Autograder for the attention homework: sandboxed grading, the Gradescope zip, reports.

In a notebook opened in the handout's folder: ``import autograder; autograder.check("qkv_arithmetic")``.
"""

from __future__ import annotations

__version__ = "1.0.0"


def check(*problems: str, folder=None):
    """The public tests of ``problems`` (default: all) on your modules, run out of process; see
    ``autograder.notebook``."""
    from .notebook import check as run_check

    return run_check(*problems, folder=folder)


def submit(folder=None, out="submission.zip"):
    """The check, what still fails or is not implemented, then ``out``: the zip of your modules to upload."""
    from .notebook import submit as run_submit

    return run_submit(folder=folder, out=out)
