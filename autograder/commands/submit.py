"""``submit``: run the check, say what still fails or is not implemented, and write the zip to upload."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..grading import submit as grading_submit
from ..model import manifest, paths
from ..reports import terminal

NAME = "submit"
HELP = "check your modules, then write submission.zip (exactly your module files) to upload"
DESCRIPTION = (
    "Run the public tests on the modules in DIR (a folder or a .zip; default: student_template/), list what still "
    "fails or is not implemented, and write a zip holding exactly the assignment's module files, ready for Gradescope."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "dir", nargs="?", metavar="DIR", help="folder or .zip with your .py files (default: student_template/)"
    )
    parser.add_argument(
        "--out", default="submission.zip", metavar="ZIP", help="the zip to write (default: submission.zip)"
    )


def run(args: argparse.Namespace) -> int:
    folder = Path(args.dir) if args.dir else paths.TEMPLATES
    if not folder.exists():
        print(f"error: {folder} does not exist; pass the folder (or zip) holding your .py files", file=sys.stderr)
        return 2
    assignment = manifest.load()
    done = grading_submit.submit(folder, Path(args.out), assignment)
    if done.report is not None:
        print(terminal.render(done.report, title=f"Public tests on {folder}"))
        print()
    print("\n".join(grading_submit.describe(done, assignment)))
    return 0 if done.out is not None else 2
