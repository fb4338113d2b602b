"""``build``: the Gradescope autograder zip."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..gradescope import build
from ..grading import time_rules
from ..model import manifest
from .common import refuse_unwritable

NAME = "build"
HELP = "build the Gradescope autograder zip"
DESCRIPTION = "Build the Gradescope autograder zip (it also grades with `otter run -a`)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", default="dist/autograder.zip", help="output path (default: dist/autograder.zip)")


def run(args: argparse.Namespace) -> int:
    if refuse_unwritable(Path(args.out), "autograder.zip"):
        return 2
    assignment = manifest.load()
    too_long = time_rules.bound_problem(assignment)
    if too_long:
        print(f"error: not built: {too_long}", file=sys.stderr)
        return 2
    print(f"wrote {build.build_autograder_zip(Path(args.out))}")
    settings = assignment.gradescope
    print(f"  {settings.describe()} (set these on Gradescope; `make gradescope` checks a run under them)")
    print(
        f"  worst case of any submission: {time_rules.time_bound(assignment) / 60:.1f} min in student code and worker "
        "restarts "
        f"at {settings.cpus:g} CPU, plus the grader's own work"
    )
    return 0
