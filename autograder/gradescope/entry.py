"""The zip's entry point: grade /autograder/submission with the one grading run and write results.json.

Gradescope's ``run_autograder`` starts it (``source/run_grading.py``), and so does ``otter run`` through the zip's otter
plugin (``otter_run``): both get what ``grade`` gives for the same submission, through the same view
(``reports.results_json``), one entry per test. No Jupyter kernel runs and no test runs outside ``runner.run_tests``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from .. import settings
from ..grading import grader, time_rules, worker_memory
from ..grading.observers import Observer
from ..model import manifest, paths
from ..model.manifest import DEFAULT_VISIBILITY, Visibility
from ..model.scores import GradeReport, ProblemResult
from ..reports import results_json
from ..sandbox import policy
from .run_record import RUN_RECORD, record_run


class ResultsFile(Observer):
    """results.json, written again after each problem and at the end: a grader that dies leaves what it graded."""

    def __init__(self, path: Path, visibility: Visibility = DEFAULT_VISIBILITY) -> None:
        self.path, self.visibility = Path(path), visibility

    def problem_finished(self, result: ProblemResult, so_far: GradeReport) -> None:
        results_json.write(so_far, self.path, self.visibility)

    def run_ended(self, report: GradeReport) -> None:
        results_json.write(report, self.path, self.visibility)


class RunRecord(Observer):
    """The run record beside results.json (for staff and the emulation): every call the time rules stopped or refused,
    everything each module's code printed, and every test the grader could not judge."""

    def __init__(self, folder: Path, fresh: bool = False) -> None:
        self.folder = Path(folder)
        if fresh:  # one run's record (``grade`` writes it beside its results.json, in a folder used again)
            (self.folder / RUN_RECORD).unlink(missing_ok=True)

    def call_refused(self, kind: str) -> None:
        record_run({"refused": kind}, self.folder)

    def problem_finished(self, result: ProblemResult, so_far: GradeReport) -> None:
        # Everything the module's code printed, hidden tests' too: results.json shows students the public tests' only.
        if result.staff_output:
            record_run({"printed": {result.module: result.staff_output}}, self.folder)

    def run_ended(self, report: GradeReport) -> None:
        faults = grader.fault_notes(report)  # tests the grader could not judge: its fault, a regrade is due
        if faults:
            record_run({"staff_notes": faults}, self.folder)


def staff_notes(assignment: manifest.Assignment) -> list[str]:
    """What staff should know of this run before it starts: the protections, the worker's memory, the time rules."""
    memory = worker_memory.choose(assignment)
    notes = [policy.detect().describe(), f"worker memory limit {memory.mb} MB ({memory.reason})"]
    notes += [f"warning: {memory.warning}"] if memory.warning else []
    return notes + [f"time rules: {time_rules.describe(assignment)}"]


def main(root: Path) -> int:
    """Grade ``root``/submission (``root`` is /autograder on Gradescope); results.json goes to ``root``/results."""
    root = Path(root)
    results = root / "results"
    results.mkdir(exist_ok=True)
    out = results / "results.json"
    # One submission per container: a zygote would import torch once all the same, and stay behind.
    os.environ[settings.AUTOGRADER_ZYGOTE.name] = "0"
    assignment = manifest.load()
    time_rules.start_clock(assignment.gradescope)
    visibility = assignment.gradescope.visibility
    try:
        notes = staff_notes(assignment)
        print("\n".join(notes), flush=True)  # Gradescope's log of the run (stdout is hidden from students)
        record_run({"staff_notes": notes}, results)
        # The zip (harness, hidden tests, recorded values) and the results folder: the sandbox user reads neither.
        private = (root / "source", results, paths.ROOT, root / "submission")
        report = grader.grade(
            root / "submission",
            assignment,
            grader.Purpose.GRADING,
            deadline=time_rules.inherited_deadline(),
            private=private,
            observers=[ResultsFile(out, visibility), RunRecord(results)],
        )
    except Exception as exc:  # noqa: BLE001 - Gradescope must get a results.json whatever happens
        report = GradeReport(
            str(root / "submission"),
            [],
            [f"The autograder could not grade this submission: {type(exc).__name__}: {exc}"],
        )
        results_json.write(report, out, visibility)
        print(f"error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 0
    print(f"graded {report.submission}: {report.points:g}/{report.max_points:g}", flush=True)
    return 0


# The script at the zip's top level (/autograder/source/run_grading.py on Gradescope): it puts the zip's own harness
# (``harness``, its path in the zip) first on the path.
ENTRY_SCRIPT = "run_grading.py"
ENTRY_SOURCE = '''\
"""The autograder zip's entry point (generated by autograder/gradescope/entry.py)."""
import os
import sys
from pathlib import Path

_source = Path(__file__).resolve().parent
sys.path.insert(0, str(_source / "{harness}"))
from autograder import settings

settings.one_blas_thread()  # before the harness imports numpy
from autograder.gradescope.entry import main

sys.exit(main(_source.parent))
'''
