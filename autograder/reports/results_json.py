"""Gradescope's results.json: one entry per test, hidden tests shown once grades are published."""

from __future__ import annotations

import json
from pathlib import Path

from ..model.scores import GradeReport
from .atomic_file import write_text

OUTPUT_LIMIT = 8000


def to_results(report: GradeReport) -> dict:
    """The results.json document for ``report``."""
    tests = []
    for problem in report.problems:
        for test in problem.tests:
            output = test.message[:OUTPUT_LIMIT]
            if problem.status != "ok" and problem.status not in output:
                output = f"{problem.status}\n{output}".strip()
            tests.append({
                "name": test.full_name,
                "score": test.points,
                "max_score": test.max_points,
                "status": "passed" if test.passed else "failed",
                "output": output,
                "visibility": "after_published" if test.hidden else "visible",
            })
        if problem.output.strip():
            tests.append({
                "name": f"{problem.module}: output printed by your code",
                "score": 0.0, "max_score": 0.0, "status": "passed",
                # Hidden tests' inputs can be printed too, so this waits for grades to be published.
                "output": problem.output[-OUTPUT_LIMIT:], "visibility": "after_published",
            })
    notes = "\n".join(n for n in report.notes if not n.startswith("sandbox:"))
    results = {
        "score": report.points,
        "execution_time": round(report.seconds, 3),
        "output": notes or f"Graded {sum(len(p.tests) for p in report.problems)} tests.",
        "stdout_visibility": "hidden",
        "tests": tests,
    }
    sandbox = [n for n in report.notes if n.startswith("sandbox:")]
    if sandbox:  # for staff: Gradescope stores extra_data without showing it to the student
        results["extra_data"] = {"sandbox": sandbox[0]}
    return results


def write(report: GradeReport, path: Path) -> None:
    """Write results.json atomically (a reader never sees half a file)."""
    write_text(path, json.dumps(to_results(report), indent=2))
