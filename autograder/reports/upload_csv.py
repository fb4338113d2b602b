"""The scores in the CSV shape Gradescope takes for uploading an assignment's scores: Name, SID, Email, Total Score.

One row per student (each member of a group gets the group's score). One rule decides what is left out: what the
grader or the download broke. A submission the export lists without a folder, one the grader itself failed on, one
with a file it could not read (damaged bytes), or one whose submitters are unknown is left out and named, so that no
student gets a 0 by accident. What the student's packaging cost (a module missing, misnamed, found twice, failing to
import) is their score: it is uploaded, and the summary lists it under "needs attention".
A student found in several submissions (the same email or SID) gets the latest one's score, by ``:created_at:``,
as Gradescope keeps the latest; where that cannot be told, or the same email comes with another SID, the
students are listed as conflicts. A row's name, SID and email always come from the submission whose score it holds.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ..model.roster import Roster, Student
from ..model.scores import GradeReport
from .atomic_file import write_text
from .class_stats import unreadable_reasons
from .csv_report import spreadsheet_safe

HEADER = ["Name", "SID", "Email", "Total Score"]


@dataclass
class Upload:
    """The rows to upload, each submission or student left out and why, and the students whose identity conflicts."""

    rows: list[list[str]] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Seen:
    """One student as one submission lists them."""

    submission: str
    student: Student
    created_at: str

    @property
    def keys(self) -> set[str]:
        return {f"email:{self.student.email.lower()}"} - {"email:"} | {f"sid:{self.student.sid}"} - {"sid:"}

    def who(self) -> str:
        s = self.student
        return s.name or s.email or s.sid or "a submitter"


def _why_not(name: str, report: GradeReport | None, roster: Roster) -> str:
    """Why the submission ``name`` has no score to upload, or ""."""
    entry = roster.get(name)
    if report is None:
        return f"{name}: not graded ({entry.note if entry else 'no record'})"
    if not report.problems:
        return (f"{name}: the grader failed on it ({report.notes[0] if report.notes else 'no record'}); run grade-all "
                "again to grade it again")
    if report.unreadable:
        return (f"{name}: {'; '.join(unreadable_reasons(report))}; ask the student for the file, or download the "
                "export again")
    return ""


def _clusters(seen: list[_Seen]) -> list[list[_Seen]]:
    """The students that share an email or a SID, grouped (transitively), in the order first seen."""
    parent = list(range(len(seen)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[str, int] = {}
    for i, one in enumerate(seen):
        for key in one.keys:
            if key in owner:
                parent[root(i)] = root(owner[key])
            else:
                owner[key] = i
    groups: dict[int, list[_Seen]] = {}
    for i, one in enumerate(seen):
        groups.setdefault(root(i), []).append(one)
    return list(groups.values())


def _latest(group: list[_Seen]) -> _Seen | None:
    """The one submitted last; None when a time is missing or two different submissions tie."""
    if len({one.submission for one in group}) == 1:
        return group[0]
    if any(not one.created_at for one in group):
        return None
    times = [datetime.fromisoformat(one.created_at) for one in group]
    last = max(times)
    winners = {group[i].submission for i, t in enumerate(times) if t == last}
    return next(one for one, t in zip(group, times) if t == last) if len(winners) == 1 else None


def build(reports: dict[str, GradeReport], roster: Roster) -> Upload:
    """One row per student, from their latest submission, in submission order; each student once."""
    upload = Upload()
    blocked: dict[str, str] = {}
    seen: list[_Seen] = []
    for name in sorted(set(roster) | set(reports)):
        entry, report = roster.get(name), reports.get(name)
        reason = _why_not(name, report, roster)
        if reason:
            blocked[name] = reason
        if entry is None or not entry.students:
            if not reason:
                upload.left_out.append(
                    f"{name}: its submitters are unknown ({entry.note if entry else 'not in the metadata'})"
                )
            else:
                upload.left_out.append(reason)
            continue
        for student in entry.students:
            if not (student.email or student.sid):
                upload.left_out.append(
                    f"{name}: {student.name or 'a submitter'} has neither SID nor email to match on Gradescope"
                )
            else:
                seen.append(_Seen(name, student, entry.created_at))
    chosen: dict[_Seen, None] = {}
    for group in _clusters(seen):
        latest = _latest(group)
        names = ", ".join(dict.fromkeys(one.submission for one in group))
        identities = {(one.student.email.lower(), one.student.sid) for one in group}
        if latest is None:
            upload.conflicts.append(
                f"{' / '.join(dict.fromkeys(one.who() for one in group))}: in {names}, and which is the latest "
                "cannot be told (:created_at: missing or equal); none is uploaded: enter this score by hand"
            )
            continue
        if len(identities) > 1:
            shown = "; ".join(
                f"{one.submission}: {one.who()} <{one.student.email}> SID {one.student.sid or '-'}" for one in group
            )
            upload.conflicts.append(
                f"the same email or SID with different details ({shown}): uploaded the latest, {latest.submission}, "
                "with its own details; check these students on Gradescope"
            )
        for one in group:
            if one is not latest and one.submission != latest.submission:
                upload.left_out.append(f"{one.submission}: {one.who()} has a later submission, {latest.submission}")
        chosen[latest] = None
    for one in seen:
        if one in chosen and one.submission not in blocked:
            upload.rows.append(
                [one.student.name, one.student.sid, one.student.email, f"{reports[one.submission].points:g}"]
            )
    upload.left_out += [reason for name, reason in blocked.items() if reason not in upload.left_out]
    upload.left_out.sort(
        key=lambda reason: reason.split(":", 1)[0]
    )  # by submission, each submission's reasons in order
    return upload


def render(upload: Upload) -> str:
    """The CSV text (every text cell spreadsheet-safe)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")  # RFC 4180; a CR inside a cell is quoted too
    writer.writerow(HEADER)
    writer.writerows([*map(spreadsheet_safe, row[:3]), row[3]] for row in upload.rows)
    return buffer.getvalue()


def write(upload: Upload, path: Path) -> None:
    """Write the CSV atomically."""
    write_text(path, render(upload))
