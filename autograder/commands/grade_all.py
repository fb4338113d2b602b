"""``grade-all``: every submission of a folder into a CSV, results and a summary; resumable."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import batch
from ..sandbox import policy

NAME = "grade-all"
HELP = "staff: grade every submission (folder or zip) in DIR into a CSV"
DESCRIPTION = ("Grade every submission in DIR in parallel; write grades.csv, results/<name>.json, summary.txt and "
               "histogram.png beside it. A rerun grades only submissions not graded yet.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", metavar="DIR", help="folder holding one folder or zip per submission")
    parser.add_argument("--out", default="grades.csv", help="the CSV to write (default: ./grades.csv)")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="submissions graded at once (default: 2)")
    parser.add_argument("--force", action="store_true", help="grade again submissions graded by an earlier run")


def run(args: argparse.Namespace) -> int:
    folder = Path(args.dir)
    if not folder.is_dir():
        print(f"error: {folder} is not a folder of submissions", file=sys.stderr)
        return 2
    print(policy.detect().describe(), file=sys.stderr)
    done = batch.grade_all(folder, Path(args.out), jobs=args.jobs, force=args.force)
    print(batch.write_summary(done))
    print(f"graded {len(done.graded)} now, {len(done.reports) - len(done.graded)} from earlier runs; wrote {args.out}")
    return 0
