"""``handout``: the students' zip (stubs, statements, public tests with recorded values, ``check``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..staff import handout
from .common import refuse_unwritable

NAME = "handout"
HELP = "staff: build the students' handout zip"
DESCRIPTION = "Stubs, statements, public tests with recorded expected values and the self-check runner; no reference."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", default="dist/handout.zip", help="output path (default: dist/handout.zip)")


def run(args: argparse.Namespace) -> int:
    if refuse_unwritable(Path(args.out), "handout.zip"):
        return 2
    print(f"wrote {handout.build_handout(Path(args.out))}")
    return 0
