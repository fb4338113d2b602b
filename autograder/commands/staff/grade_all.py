"""``grade-all``: every submission of a folder or Gradescope export into a CSV, results and a summary; resumable."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ...gradescope import export as gradescope_export
from ...reports import terminal
from ...sandbox import policy
from ...sandbox.policy import refuse_unsandboxed
from ...staff import batch

NAME = "grade-all"
HELP = "staff: grade every submission (folder or zip) in DIR, or a Gradescope export, into a CSV"
DESCRIPTION = ("Grade every submission in DIR in parallel: a folder of submissions (folders or zips), or Gradescope's "
               "\"Download Submissions\" export (zipped or not; names, SIDs and emails come from its submission_metadata.yml). "
               "Writes grades.csv, results/<name>.json, records/<name>.json, summary.txt, summary.html and histogram.png "
               "beside it, and for an export gradescope_upload.csv. A rerun grades only submissions not graded yet.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", metavar="DIR", help="a folder holding one folder or zip per submission, or a Gradescope export (folder or .zip)")
    parser.add_argument("--out", default="grades.csv", help="the CSV to write; the other outputs go beside it (default: ./grades.csv)")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="submissions graded at once (default: 2)")
    parser.add_argument("--force", action="store_true", help="grade again submissions graded by an earlier run")
    parser.add_argument("--against", metavar="OLD_DIR", help="an earlier run's output folder (the one holding its grades.csv and records/): "
                        "list the submissions whose score changed since, and the tests that changed; also written to regrade.txt")


def _earlier_run(against: str, out_dir: Path) -> Path | None:
    """The folder of the run to compare with, after checking it has records; None after explaining what is wrong."""
    old = Path(against)
    old = old.parent if old.is_file() else old
    if not (old / batch.RECORDS).is_dir() or not any((old / batch.RECORDS).glob("*.json")):
        print(f"error: --against {against}: no score records in {old / batch.RECORDS}; pass the folder of an earlier "
              "grade-all run (the one holding its grades.csv, records/ and results/)", file=sys.stderr)
        return None
    if old.resolve() == out_dir.resolve():
        print(f"error: --against {against} is where this run writes; grade into another folder (--out NEW/grades.csv) "
              "to compare with it", file=sys.stderr)
        return None
    return old


def run(args: argparse.Namespace) -> int:
    refuse_unsandboxed()  # never falls back to the portable path: exit 2, saying why
    source, out = Path(args.dir), Path(args.out)
    if not source.exists():
        print(f"error: {source} does not exist; pass a folder of submissions or a Gradescope export", file=sys.stderr)
        return 2
    old = _earlier_run(args.against, out.parent) if args.against else None
    if args.against and old is None:
        return 2
    try:
        opened, found = batch.open_batch(source, out)
    except gradescope_export.ExportError as exc:
        print(terminal.safe(f"error: {exc}"), file=sys.stderr)
        return 2
    for message in opened.messages:
        print(f"warning: {message}", file=sys.stderr)
    print(policy.detect().describe(), file=sys.stderr)
    done = batch.grade(opened, found, jobs=args.jobs, force=args.force)
    print(terminal.safe(batch.write_summary(done)))
    upload = batch.write_upload(done)
    if upload is not None:
        print(f"wrote {out.parent / batch.UPLOAD_CSV}: {len(upload.rows)} students" + (f"; left out {len(upload.left_out)}:" if upload.left_out else ""))
        for reason in upload.left_out:
            print(f"  {reason}")
    if old is not None:
        print(terminal.safe(batch.write_regrade(done, old)))
    print(f"graded {len(done.graded)} now, {len(done.reports) - len(done.graded)} from earlier runs; wrote {args.out}")
    return 0
