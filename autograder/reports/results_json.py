"""Gradescope's results.json: one entry per test; when a student sees each is the assignment's ``gradescope.visibility``
(by default public tests at once, hidden tests and printed output once grades are published). What the student's code
printed while hidden tests ran is never shown: only which hidden tests printed, and how much.

``grade``, ``grade-all`` and the zip's entry point on Gradescope (and so ``otter run``) all write it with this view."""

from __future__ import annotations

import json
from pathlib import Path

from ..model.manifest import DEFAULT_VISIBILITY, Visibility
from ..model.scores import GRADED, GradeReport, ProblemResult
from ..settings import RESULTS_TEXT_LIMIT
from .atomic_file import write_text


def to_results(report: GradeReport, visibility: Visibility = DEFAULT_VISIBILITY) -> dict:
    """The results.json document for ``report``."""
    tests = []
    for problem in report.problems:
        for test in problem.tests:
            output = test.message[:RESULTS_TEXT_LIMIT]
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
        printed = printed_by_code(problem)
        if printed:
            tests.append({
                "name": f"{problem.module}: output printed by your code",
                "score": 0.0, "max_score": 0.0, "status": "passed",
                "output": printed, "visibility": visibility.output,
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


def printed_by_code(problem: ProblemResult) -> str:
    """What the student reads of what their code printed, in at most ``RESULTS_TEXT_LIMIT`` characters: the end of the
    text printed in public tests, and of hidden tests only how much each printed (their text would carry the hidden
    inputs; staff keep it in the record, ``staff_output``)."""
    note = _hidden_printed(problem.hidden_printed)
    room = RESULTS_TEXT_LIMIT - len(note) - 2
    text = problem.output[-room:] if problem.output.strip() else ""
    return f"{text.rstrip()}\n\n{note}" if text and note else text or note


HIDDEN_LISTED = 20  # hidden tests named one by one; the rest are counted


def _hidden_printed(sizes: dict[str, int]) -> str:
    if not sizes:
        return ""
    named = sorted(sizes.items())
    listed = ", ".join(f"{name[:100]} ({_size(size)})" for name, size in named[:HIDDEN_LISTED])
    rest = named[HIDDEN_LISTED:]
    if rest:
        listed += f", and {len(rest)} more ({_size(sum(size for _, size in rest))} in all)"
    return f"While hidden tests ran, your code printed (not shown, as hidden tests' inputs are not): {listed}."


def _size(size: int) -> str:
    return f"{size} bytes" if size < 10 << 10 else f"{size >> 10} KB"


def write(report: GradeReport, path: Path, visibility: Visibility = DEFAULT_VISIBILITY) -> None:
    """Write results.json atomically (a reader never sees half a file)."""
    write_text(path, json.dumps(to_results(report, visibility), indent=2))
