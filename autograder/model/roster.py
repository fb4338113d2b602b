"""Who made each submission of a batch: what the reports show beside the scores (names, SIDs, emails)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Student:
    """One submitter as Gradescope lists them; a field Gradescope left empty is ``""``."""

    name: str
    sid: str
    email: str


@dataclass(frozen=True)
class Entry:
    """The submitters of one submission, and what kept them from being known."""

    students: tuple[Student, ...] = ()
    note: str = ""  # why the submission is known by its folder name only (a metadata problem)
    missing: bool = False  # listed in the metadata, but the export has no folder for it: nothing to grade
    created_at: str = ""  # when it was submitted (ISO 8601, with its UTC offset); "" when the metadata does not say


Roster = dict[str, Entry]  # by submission name (the folder name, as in records/<name>.json)
