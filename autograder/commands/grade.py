"""``grade``: every test on one submission; Gradescope's results.json, whatever happens."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..gradescope import entry
from ..grading import grader
from ..model import manifest
from ..model.manifest import DEFAULT_VISIBILITY
from ..model.scores import GradeReport
from ..reports import results_json, terminal
from ..sandbox import policy
from ..sandbox.policy import refuse_unsandboxed
from .common import refuse_unwritable

NAME = "grade"
HELP = "run every test on a submission and write results.json"
DESCRIPTION = (
    "Grade a submission (a folder or a .zip) with public and hidden tests; write Gradescope's results.json, and "
    "beside it the run record (for staff: everything the code printed, hidden tests' too)."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("submission", metavar="SUBMISSION", help="a folder or a .zip holding the module files")
    parser.add_argument("--out", default="results.json", help="where to write results.json (default: ./results.json)")
    parser.add_argument("-q", "--quiet", action="store_true", help="do not print the table")


def run(args: argparse.Namespace) -> int:
    refuse_unsandboxed()  # never falls back to the portable path: exit 2, saying why, and no results.json
    out = Path(args.out)
    if refuse_unwritable(out, "results.json"):
        return 2
    print(policy.detect().describe(), file=sys.stderr)  # staff should know what the worker runs under
    visibility = DEFAULT_VISIBILITY
    try:
        assignment = manifest.load()
        visibility = assignment.gradescope.visibility
        report = grader.grade(Path(args.submission), assignment, grader.Purpose.GRADING,
                              observers=[entry.ResultsFile(out, visibility), entry.RunRecord(out.parent, fresh=True)])
    except Exception as exc:  # noqa: BLE001 - results.json must be written whatever happens
        report = GradeReport(
            args.submission, [], [f"The autograder could not grade this submission: {type(exc).__name__}: {exc}"]
        )
        results_json.write(report, out, visibility)
        print(terminal.safe(f"error: {exc}"), file=sys.stderr)
        return 0
    for note in report.staff_notes[1:]:  # the memory limit, how the workers started, any fault of the grader's
        print(terminal.safe(note), file=sys.stderr)
    if not args.quiet:
        print(terminal.render(report, title=f"Grading {args.submission}"))
    print(f"wrote {out} (score {report.points:g}/{report.max_points:g})")
    return 0
