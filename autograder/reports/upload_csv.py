"""The scores in the CSV shape Gradescope takes for uploading an assignment's scores: Name, SID, Email, Total Score.

One row per student (each member of a group gets the group's score). Only graded submissions are
uploaded: a submission the export lists without a folder, one the grader itself failed on, or one
whose submitters are unknown is left out and named, so that no student gets a 0 by accident.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

from ..model.roster import Roster
from ..model.scores import GradeReport
from .atomic_file import write_text

HEADER = ["Name", "SID", "Email", "Total Score"]


@dataclass
class Upload:
    """The rows to upload and, for each submission or student left out, why."""

    rows: list[list[str]] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)


def build(reports: dict[str, GradeReport], roster: Roster) -> Upload:
    """One row per student of every graded submission, in submission order; each student once."""
    upload, seen = Upload(), {}
    for name in sorted(set(roster) | set(reports)):
        entry, report = roster.get(name), reports.get(name)
        if report is None:
            upload.left_out.append(f"{name}: not graded ({entry.note if entry else 'no record'})")
            continue
        if not report.problems:
            upload.left_out.append(f"{name}: the grader failed on it ({report.notes[0] if report.notes else 'no record'}); grade it again with --force")
            continue
        if entry is None or not entry.students:
            upload.left_out.append(f"{name}: its submitters are unknown ({entry.note if entry else 'not in the metadata'})")
            continue
        for student in entry.students:
            key = (student.email or student.sid).lower()
            if not key:
                upload.left_out.append(f"{name}: {student.name or 'a submitter'} has neither SID nor email to match on Gradescope")
            elif key in seen:
                upload.left_out.append(f"{name}: {student.name or key} already has a row from {seen[key]}")
            else:
                seen[key] = name
                upload.rows.append([student.name, student.sid, student.email, f"{report.points:g}"])
    return upload


def render(upload: Upload) -> str:
    """The CSV text."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(HEADER)
    writer.writerows(upload.rows)
    return buffer.getvalue()


def write(upload: Upload, path: Path) -> None:
    """Write the CSV atomically."""
    write_text(path, render(upload))
