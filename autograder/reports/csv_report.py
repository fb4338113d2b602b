"""grades.csv, rendered from score records: one row per submission, or per student for a Gradescope export.

Every text cell is spreadsheet-safe: one that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return
(a formula to a spreadsheet) gets a leading ``'``, as OWASP's guidance on CSV injection says; the csv module quotes
the rest, so a reader gets the text back exactly, with that one quote in front.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from ..model.roster import Entry, Roster, Student
from ..model.scores import GradeReport
from . import class_stats
from .atomic_file import write_text

STUDENT_COLUMNS = ["name", "sid", "email"]
NOBODY = Student("", "", "")
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(text: str) -> str:
    """``text``, with a ``'`` in front if a spreadsheet would take it for a formula."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def status(report: GradeReport) -> str:
    """``ok``, or every reason the summary's "needs attention" gives for the submission
    (``class_stats.reasons_for``)."""
    return "; ".join(class_stats.reasons_for(report)) or "ok"


def header(modules: list[str], roster: Roster | None = None) -> list[str]:
    """Column names; a Gradescope export adds the student's name, SID and email first."""
    return ([*STUDENT_COLUMNS] if roster is not None else []) + ["submission", *modules, "total", "seconds", "status"]


def row(name: str, report: GradeReport, modules: list[str]) -> list[str]:
    """One submission's row; a problem absent from the record is left blank."""
    points = {p.module: f"{p.points:g}" for p in report.problems}
    return [
        spreadsheet_safe(name),
        *(points.get(m, "") for m in modules),
        f"{report.points:g}",
        f"{report.seconds:.2f}",
        spreadsheet_safe(status(report)),
    ]


def _export_rows(name: str, report: GradeReport | None, modules: list[str], entry: Entry) -> list[list[str]]:
    """One row per submitter (a group's row repeated); a submission without a folder has no scores."""
    if report is None:
        cells = [spreadsheet_safe(name), *("" for _ in modules), "", "", spreadsheet_safe(entry.note)]
    else:
        cells = row(name, report, modules)
        if entry.note:
            cells[-1] = f"{cells[-1]}; {entry.note}"
    return [[*map(spreadsheet_safe, (s.name, s.sid, s.email)), *cells] for s in entry.students or (NOBODY,)]


def render(reports: list[tuple[str, GradeReport | None]], modules: list[str], roster: Roster | None = None) -> str:
    """The whole CSV text (``None`` stands for a submission the export lists but does not hold)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")  # RFC 4180; a CR inside a cell is quoted too
    writer.writerow(header(modules, roster))
    for name, report in reports:
        if roster is None:
            writer.writerow(row(name, report, modules))
        else:
            writer.writerows(_export_rows(name, report, modules, roster.get(name, Entry())))
    return buffer.getvalue()


def write(
    reports: list[tuple[str, GradeReport | None]], modules: list[str], path: Path, roster: Roster | None = None
) -> None:
    """Write the CSV atomically (a reader never sees half a file)."""
    write_text(path, render(reports, modules, roster))
