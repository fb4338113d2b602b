"""``grade-all``: every submission of a folder or Gradescope export into a CSV, results and a summary; resumable, in
shards."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..gradescope import export as gradescope_export
from ..reports.terminal import one_line, safe
from ..sandbox import policy
from ..sandbox.policy import refuse_unsandboxed
from ..staff import grade_all
from .common import at_least_one, refuse_unwritable

NAME = "grade-all"
HELP = "staff: grade every submission (folder or zip) in DIR, or a Gradescope export, into a CSV"
DESCRIPTION = (
    "Grade every submission in DIR in parallel: a folder of submissions (folders or zips), or Gradescope's "
    '"Download Submissions" export (zipped or not; names, SIDs and emails come from its submission_metadata.yml). '
    "Writes grades.csv, results/<name>.json, records/<name>.json, summary.txt, summary.html and histogram.png "
    "beside it, and for an export gradescope_upload.csv. A rerun grades only submissions not graded yet, and "
    "those graded with other tests, points, recorded values or harness code, or whose module files changed "
    "(only what changed). "
    "With --shard K/N it grades the K-th of N parts (on another machine, say); --merge builds the outputs from "
    "every shard's folder."
)


SHARED_COUNT_WARNING = (
    "warning: this machine gives your user no user namespace that counts its processes apart, so every job's "
    "processes count against your own process limit: while one submission starts processes up to its limit, another "
    "job's code cannot start any (each test and every honest call still run). --jobs 1 avoids it, as does grading as "
    "root; this run grades {jobs} at once."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "dir",
        metavar="DIR",
        help="a folder holding one folder or zip per submission, or a Gradescope export (folder or .zip)",
    )
    parser.add_argument(
        "--out", default="grades.csv", help="the CSV to write; the other outputs go beside it (default: ./grades.csv)"
    )
    parser.add_argument("-j", "--jobs", type=at_least_one, default=2, help="submissions graded at once (default: 2)")
    parser.add_argument(
        "--force",
        action="store_true",
        help="grade again submissions graded by an earlier run, even those still current",
    )
    parser.add_argument(
        "--against",
        metavar="OLD_DIR",
        help="an earlier run's output folder (the one holding its grades.csv and records/): "
        "list the submissions whose score changed since, and the tests that changed; also written to regrade.txt",
    )
    parser.add_argument(
        "--shard",
        metavar="K/N",
        help="grade only the K-th of N parts of DIR (every N-th submission by name); "
        "its --out folder is one shard for --merge",
    )
    parser.add_argument(
        "--merge",
        metavar="SHARD_DIR",
        nargs="+",
        help="grade nothing: build the CSV, summary and upload of DIR in --out "
        "from the --out folders of all N shards (refused, with the commands that grade it again, if this checkout "
        "would grade any of their records again: other tests, points, problems or harness, or changed files)",
    )


def _earlier_run(against: str, out_dir: Path) -> Path | None:
    """The folder of the run to compare with, after checking it has records; None after explaining what is wrong."""
    old = Path(against)
    old = old.parent if old.is_file() else old
    records = old / grade_all.RECORDS
    if not records.is_dir() or not any(records.glob("*.json")):
        print(f"error: --against {against}: no score records in {records}; pass the folder of an earlier "
              "grade-all run (the one holding its grades.csv, records/ and results/)", file=sys.stderr)
        return None
    if old.resolve() == out_dir.resolve():
        print(f"error: --against {against} is where this run writes; grade into another folder (--out NEW/grades.csv) "
              "to compare with it", file=sys.stderr)
        return None
    return old


def _error(text: str) -> int:
    print(safe(f"error: {text}"), file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    if not args.merge:
        refuse_unsandboxed()  # never falls back to the portable path: exit 2, saying why
    source, out = Path(args.dir), Path(args.out)
    if not source.exists():
        return _error(f"{source} does not exist; pass a folder of submissions or a Gradescope export")
    if refuse_unwritable(out, "grades.csv"):
        return 2
    if args.merge and args.shard:
        return _error("--merge and --shard do not go together: grade each shard, then merge them in another run")
    try:
        shard = grade_all.parse_shard(args.shard) if args.shard else None
    except ValueError as exc:
        return _error(str(exc))
    old = _earlier_run(args.against, out.parent) if args.against else None
    if args.against and old is None:
        return 2
    try:
        opened, found = grade_all.open_batch(source, out, shard=shard)
        for message in opened.messages:
            print(one_line(f"warning: {message}"), file=sys.stderr)
        for name, reason in opened.refused.items():
            print(one_line(f"not graded: {name}: {reason}"), file=sys.stderr)
        if args.merge:
            done = grade_all.merge(opened, [Path(d) for d in args.merge], found)
        else:
            protections = policy.detect()
            print(protections.describe(), file=sys.stderr)
            if protections.shared_process_count and args.jobs > 1:
                print(SHARED_COUNT_WARNING.format(jobs=args.jobs), file=sys.stderr)
            done = grade_all.grade(opened, found, jobs=args.jobs, force=args.force)
    except (grade_all.RunError, gradescope_export.ExportError) as exc:
        return _error(str(exc))
    if shard is not None:
        print(
            f"graded shard {shard[0]}/{shard[1]}: {grade_all.done_line(done).removeprefix('graded ')}; "
            f"wrote {args.out}; merge every shard with: grade-all {args.dir} --merge SHARD_DIR... --out "
            "MERGED/grades.csv"
        )
        return 0
    print(safe(grade_all.write_summary(done)))
    upload = grade_all.write_upload(done)
    if upload is not None:
        print(
            f"wrote {out.parent / grade_all.UPLOAD_CSV}: {len(upload.rows)} students"
            + (f"; left out {len(upload.left_out)}:" if upload.left_out else "")
        )
        for reason in upload.left_out:
            print(one_line(f"  {reason}"))
        if upload.conflicts:
            print(f"conflicts ({len(upload.conflicts)}): check these students on Gradescope")
            for conflict in upload.conflicts:
                print(one_line(f"  {conflict}"))
    if old is not None:
        print(safe(grade_all.write_regrade(done, old)))
    if args.merge:
        print(f"merged {len(done.reports)} submissions from {len(args.merge)} shards; wrote {args.out}")
    else:
        print(f"{grade_all.done_line(done)}; wrote {args.out}")
    return 0
