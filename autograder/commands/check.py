"""``check``: the public tests on a student's modules, a table per problem."""

from __future__ import annotations

import argparse
import sys
import zipfile
from pathlib import Path

from ..grading import check as grading_check
from ..model import manifest, paths
from ..reports import terminal
from .common import known_problems

NAME = "check"
HELP = "run the public tests on your modules"
DESCRIPTION = (
    "Run the public tests on the modules in DIR (a folder or a .zip, as you would upload it) and print a table "
    "per problem. Exit 0 only if all pass, 3 if the grader could not judge some (its fault, not yours). "
    "`python -m autograder submit` then writes the zip to upload."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "dir", nargs="?", metavar="DIR", help="folder or .zip with your .py files (default: student_template/)"
    )
    parser.add_argument(
        "-p", "--problem", action="append", metavar="MODULE", help="check only this problem (repeatable)"
    )


def run(args: argparse.Namespace) -> int:
    folder = Path(args.dir) if args.dir else paths.TEMPLATES
    if not folder.exists():
        print(
            f"error: {folder} does not exist; pass the folder holding your .py files, e.g. python -m autograder check "
            "my_solutions/",
            file=sys.stderr,
        )
        return 2
    assignment = manifest.load()
    modules = known_problems(assignment, args.problem)
    if modules is None:
        return 2
    if folder.is_file() and not zipfile.is_zipfile(folder):
        only = f" -p {folder.stem}" if folder.suffix == ".py" and folder.stem in assignment.modules else ""
        print(f"error: {folder} is a file, not a folder or a .zip of your modules; check the folder holding it: "
              f"python -m autograder check {folder.parent}{only}", file=sys.stderr)
        return 2
    report = grading_check.run(folder, assignment, modules)
    print(terminal.render(report, title=f"Public tests on {folder}"))
    print(grading_check.verdict(report, assignment))
    return 3 if report.grader_faults else 0 if report.all_passed else 1
