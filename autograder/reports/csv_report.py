"""grades.csv: one row per submission, one column per problem, rendered from score records."""

from __future__ import annotations

import csv
import io
import os
import tempfile
from pathlib import Path

from ..scores import GradeReport
from ..submission import NOT_FOUND


def status(report: GradeReport) -> str:
    """``ok``, or what went wrong with the submission as a whole or with some of its modules."""
    if not report.problems:
        return report.notes[0] if report.notes else "not graded"
    bad = [(p.module, p.status) for p in report.problems if p.status != "ok"]
    if not bad:
        return "ok"
    if len(bad) == len(report.problems) and len({reason for _, reason in bad}) == 1:
        return bad[0][1]
    missing = [module for module, reason in bad if reason.endswith(NOT_FOUND)]
    if len(missing) == len(report.problems):
        return "no module file found"
    parts = [f"missing {', '.join(f'{m}.py' for m in missing)}"] if missing else []
    return "; ".join(parts + [f"{module}: {reason}" for module, reason in bad if module not in missing])


def header(modules: list[str]) -> list[str]:
    """Column names."""
    return ["submission", *modules, "total", "seconds", "status"]


def row(name: str, report: GradeReport, modules: list[str]) -> list[str]:
    """One submission's row; a problem absent from the record is left blank."""
    points = {p.module: f"{p.points:g}" for p in report.problems}
    return [name, *(points.get(m, "") for m in modules), f"{report.points:g}", f"{report.seconds:.2f}", status(report)]


def render(reports: list[tuple[str, GradeReport]], modules: list[str]) -> str:
    """The whole CSV text."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header(modules))
    writer.writerows(row(name, report, modules) for name, report in reports)
    return buffer.getvalue()


def write(reports: list[tuple[str, GradeReport]], modules: list[str], path: Path) -> None:
    """Write the CSV atomically (a reader never sees half a file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".grades-", suffix=".csv")
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
        f.write(render(reports, modules))
    os.replace(tmp, path)
