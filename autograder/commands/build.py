"""``build``: the Gradescope autograder zip, made with ``otter generate``."""

from __future__ import annotations

import argparse
from pathlib import Path

from .. import build

NAME = "build"
HELP = "build the Gradescope autograder zip with otter generate"
DESCRIPTION = "Build the Gradescope autograder zip (otter-grader format)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", default="dist/autograder.zip", help="output path (default: dist/autograder.zip)")


def run(args: argparse.Namespace) -> int:
    print(f"wrote {build.build_autograder_zip(Path(args.out))}")
    return 0
