"""Gradescope's results.json: one entry per test; when a student sees each is the assignment's ``gradescope.visibility``
(by default public tests at once, hidden tests and printed output once grades are published).

``grade``, ``grade-all`` and the zip's entry point on Gradescope (and so ``otter run``) all write it with this view."""

from __future__ import annotations

import json
from pathlib import Path

from ..model.manifest import DEFAULT_VISIBILITY, Visibility
from ..model.scores import GRADED, GradeReport
from .atomic_file import write_text

OUTPUT_LIMIT = 8000


def to_results(report: GradeReport, visibility: Visibility = DEFAULT_VISIBILITY) -> dict:
    """The results.json document for ``report``."""
    tests = []
    for problem in report.problems:
        for test in problem.tests:
            output = test.message[:OUTPUT_LIMIT]
            if problem.kind != GRADED and problem.status not in output:
                output = f"{problem.status}\n{output}".strip()
            tests.append({
                "name": test.full_name,
                "score": test.points,
                "max_score": test.max_points,
                "status": "passed" if test.passed else "failed",
                "output": output,
                "visibility": visibility.hidden if test.hidden else visibility.public,
            })
        if problem.output.strip():
            tests.append({
                "name": f"{problem.module}: output printed by your code",
                "score": 0.0, "max_score": 0.0, "status": "passed",
                # Hidden tests' inputs can be printed too, so this waits for grades to be published.
                "output": problem.output[-OUTPUT_LIMIT:], "visibility": visibility.output,
            })
    notes = "\n".join(report.notes)
    results = {
        "score": report.points,
        "execution_time": round(report.seconds, 3),
        "output": notes or f"Graded {sum(len(p.tests) for p in report.problems)} tests.",
        "stdout_visibility": "hidden",
        "tests": tests,
    }
    if report.staff_notes:  # for staff: Gradescope stores extra_data without showing it to the student
        results["extra_data"] = {"sandbox": report.staff_notes[0], "staff_notes": report.staff_notes}
    return results


def write(report: GradeReport, path: Path, visibility: Visibility = DEFAULT_VISIBILITY) -> None:
    """Write results.json atomically (a reader never sees half a file)."""
    write_text(path, json.dumps(to_results(report, visibility), indent=2))
