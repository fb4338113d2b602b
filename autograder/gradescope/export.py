"""Gradescope's "Download Submissions" export: ``submission_metadata.yml`` beside one folder per submission.

The export is read as it comes, zipped or unzipped, at its top level or inside one folder. Nothing is
extracted: a folder inside the zip is graded in place (``submission.locate`` reads ``export.zip/submission_1``).
A metadata problem is reported by file and entry (``Export.errors``): a run stops on it before grading, since
scores it cannot put on a student's row are of no use. A folder whose name the grader will not use as a file name
(a path separator, a control character, hidden) is listed with the reason (``Export.refused``), never graded.
"""

from __future__ import annotations

import datetime
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import yaml

from ..grading.submission import ZIP_ERRORS
from ..model.roster import Entry, Roster, Student

METADATA = "submission_metadata.yml"
MAX_METADATA_BYTES = 64 << 20
SKIPPED = ("__MACOSX", ".DS_Store")
MAX_NAME = 150  # characters of a submission's name: records/<name>.json must stay a valid file name
# C0 and C1 controls, DEL, and the bidirectional overrides: a name holding one would rewrite what staff read.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


class ExportError(Exception):
    """The path is not a Gradescope export nor a folder of submissions."""


@dataclass
class Export:
    """The submissions of an export, who made each, what was wrong with the metadata, and what is not graded."""

    submissions: dict[str, Path]
    roster: Roster
    messages: list[str] = field(default_factory=list)  # warnings: the run goes on
    errors: list[str] = field(default_factory=list)  # malformed metadata: the run must stop before grading
    refused: dict[str, str] = field(default_factory=dict)  # entry -> why it is not graded


def refusal(name: str) -> str:
    """Why a submission named ``name`` is not graded, or "" when it is: its name becomes a file name in the output."""
    if _CONTROL.search(name):
        return "its name holds control characters (shown escaped); rename it"
    if "/" in name or "\\" in name:
        return "its name holds a path separator (/ or \\); rename it"
    if name in (".", ".."):
        return f"its name is {name!r}; rename it"
    if name.startswith("."):
        return "hidden (its name begins with a dot)"
    if len(name) > MAX_NAME:
        return f"its name is longer than {MAX_NAME} characters; rename it"
    return ""


def split_refused(found: dict[str, Path]) -> tuple[dict[str, Path], dict[str, str]]:
    """``found`` without the entries the grader will not grade, and those entries with the reason."""
    refused = {name: refusal(name) for name in found if refusal(name)}
    return {n: p for n, p in found.items() if n not in refused}, refused


def read(path: Path, exclude: tuple[Path, ...] = ()) -> Export | None:
    """The export at ``path`` (a folder or a zip); None for a folder without ``submission_metadata.yml``."""
    path = Path(path)
    if path.is_dir():
        return _read_folder(path, {p.resolve() for p in exclude})
    if path.is_file() and zipfile.is_zipfile(path):
        return _read_zip(path)
    if path.is_file() and _looks_like_zip(path):
        raise ExportError(
            f"{path.name} is a damaged zip (it begins as a zip but its end, the list of its files, is missing or "
            "broken: a download cut short?); download the export again"
        )
    raise ExportError(f"{path} is neither a folder of submissions nor a zip of a Gradescope export")


def _looks_like_zip(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(4) in (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")
    except OSError:
        return False


def _listed(entry: str) -> bool:
    return entry not in ("", METADATA) and entry not in SKIPPED


def _read_folder(folder: Path, excluded: set[Path]) -> Export | None:
    root = folder if (folder / METADATA).is_file() else _only_subfolder_with_metadata(folder, excluded)
    if root is None:
        return None
    found = {e.name: e for e in sorted(root.iterdir()) if _listed(e.name) and e.resolve() not in excluded}
    metadata = root / METADATA
    try:
        with open(metadata, "rb") as f:
            text = f.read(MAX_METADATA_BYTES + 1)
    except OSError as exc:
        return _combine(found, _unreadable(metadata.name, str(exc)))
    return _combine(found, parse_metadata(text, metadata.name))


def _only_subfolder_with_metadata(folder: Path, excluded: set[Path]) -> Path | None:
    subfolders = [
        e
        for e in folder.iterdir()
        if e.is_dir() and _listed(e.name) and not e.name.startswith(".") and e.resolve() not in excluded
    ]
    only = subfolders[0] if len(subfolders) == 1 else None
    return only if only is not None and (only / METADATA).is_file() else None


def _read_zip(path: Path) -> Export:
    try:
        with zipfile.ZipFile(path) as zf:
            names = [PurePosixPath(n) for n in zf.namelist()]
            prefix = _zip_root(names)
            if prefix is None:
                raise ExportError(
                    f"{path.name} holds no {METADATA} (at its top level or inside one folder): "
                    'pass the zip Gradescope\'s "Download Submissions" gives, or a folder of submissions'
                )
            depth = len(prefix.parts)
            folders = sorted(
                {n.parts[depth] for n in names if len(n.parts) > depth and n.parts[:depth] == prefix.parts}
            )
            found = {name: path.joinpath(*prefix.parts, name) for name in folders if _listed(name)}
            info = zf.getinfo((prefix / METADATA).as_posix())
            if info.file_size > MAX_METADATA_BYTES:
                return _combine(
                    found, _unreadable(METADATA, f"it is {info.file_size} bytes, more than {MAX_METADATA_BYTES}")
                )
            with zf.open(info) as f:
                return _combine(found, parse_metadata(f.read(MAX_METADATA_BYTES + 1), METADATA))
    except ZIP_ERRORS as exc:
        raise ExportError(f"{path.name} is not a readable zip ({exc}); download the export again") from None


def _zip_root(names: list[PurePosixPath]) -> PurePosixPath | None:
    """Where the metadata is: the top level, or the one folder that holds it (``assignment_1_export/``)."""
    if PurePosixPath(METADATA) in names:
        return PurePosixPath()
    roots = {
        n.parent
        for n in names
        if n.name == METADATA and len(n.parts) == 2 and _listed(n.parts[0]) and not n.parts[0].startswith(".")
    }
    return roots.pop() if len(roots) == 1 else None


@dataclass
class Metadata:
    """What ``submission_metadata.yml`` says: submitters of each well-formed entry, and the problems found."""

    students: dict[str, tuple[Student, ...]] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)  # entry -> what is wrong with it
    problems: list[str] = field(default_factory=list)  # about the file as a whole
    created: dict[str, str] = field(default_factory=dict)  # entry -> when it was submitted (ISO 8601), where it says


def _unreadable(label: str, reason: str) -> Metadata:
    return Metadata(problems=[f"{label} could not be read ({reason})"])


def parse_metadata(text: bytes | str, label: str = METADATA) -> Metadata:
    """Parse and check the metadata; each problem names ``label`` and the entry."""
    if len(text) > MAX_METADATA_BYTES:
        return _unreadable(label, f"more than {MAX_METADATA_BYTES} bytes")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        return _unreadable(label, f"not valid YAML: {_yaml_problem(exc)}")
    if data is None:
        return Metadata()
    if not isinstance(data, dict):
        return Metadata(problems=[f"{label}: should map each submission folder (submission_<id>) to its entry, "
                                  f"found a {type(data).__name__}"])
    found = Metadata()
    for key, entry in data.items():
        try:
            found.students[str(key)] = _submitters(entry)
            found.created[str(key)] = _created_at(entry.get(":created_at"))
        except ValueError as exc:
            found.notes[str(key)] = f"{label}: entry {key}: {exc}"
    return found


def _created_at(value: object) -> str:
    """``:created_at:`` as ISO 8601 (YAML reads Gradescope's ``2024-03-01 10:00:00.123456789 -08:00`` as a datetime)."""
    if value is None:
        return ""
    if isinstance(value, str):
        try:
            value = datetime.datetime.fromisoformat(
                re.sub(r"(\.\d{6})\d+", r"\1", value.strip()).replace(" -", "-").replace(" +", "+")
            )
        except ValueError:
            raise ValueError(f"':created_at:' should be a date and time, found {value!r}") from None
    if not isinstance(value, datetime.datetime):
        raise ValueError(f"':created_at:' should be a date and time, found a {type(value).__name__}")
    if value.tzinfo is None:
        value = value.replace(tzinfo=datetime.UTC)  # YAML gives naive datetimes in UTC
    return value.isoformat()


def _yaml_problem(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or " ".join(str(exc).split())
    return f"{problem} at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else problem


def _submitters(entry: object) -> tuple[Student, ...]:
    if not isinstance(entry, dict):
        raise ValueError(f"should be a mapping with ':submitters:', found a {type(entry).__name__}")
    if ":submitters" not in entry:
        raise ValueError("':submitters:' is missing")
    people = entry[":submitters"]
    if not isinstance(people, list) or not people:
        raise ValueError(
            "':submitters:' should be a list" + (" of at least one submitter" if isinstance(people, list) else "")
        )
    return tuple(_student(person, number) for number, person in enumerate(people, 1))


def _student(person: object, number: int) -> Student:
    if not isinstance(person, dict):
        raise ValueError(f"submitter {number} should be a mapping with ':name:', ':sid:' and ':email:'")
    fields = []
    for key in (":name", ":sid", ":email"):
        value = person.get(key)
        if isinstance(value, bool) or not isinstance(value, (str, int, type(None))):
            raise ValueError(f"submitter {number}: '{key}:' should be text, found a {type(value).__name__}")
        fields.append("" if value is None else str(value).strip())
    return Student(*fields)


def _combine(found: dict[str, Path], metadata: Metadata) -> Export:
    """Match folders with entries: a malformed entry, or a folder without one, is an error (the run stops before
    grading); an entry without a folder is listed as missing (nothing to grade, left out of the upload)."""
    found, refused = split_refused(found)
    roster: Roster = {}
    errors, messages = list(metadata.problems), []
    for name in found:
        if name in metadata.students:
            roster[name] = Entry(metadata.students[name], created_at=metadata.created.get(name, ""))
        else:
            note = metadata.notes.get(name) or (
                f"{METADATA} has no entry {name}" if not metadata.problems else metadata.problems[0]
            )
            roster[name] = Entry(note=note)
            if name in metadata.notes or not metadata.problems:
                errors.append(note)
    for name, reason in refused.items():
        roster[name] = Entry(metadata.students.get(name, ()), note=f"not graded: {reason}", missing=True,
                             created_at=metadata.created.get(name, ""))
    for name in sorted(set(metadata.students) | set(metadata.notes)):
        if name in refused:
            continue
        if name not in found:
            roster[name] = Entry(
                metadata.students.get(name, ()),
                note=f"{METADATA} lists {name} but the export has no folder {name}/",
                missing=True,
                created_at=metadata.created.get(name, ""),
            )
            messages.append(
                f"{roster[name].note}: nothing to grade; it is left out of the upload (download the export again?)"
            )
    return Export(found, roster, messages, errors, refused)
