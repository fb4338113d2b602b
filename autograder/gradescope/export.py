"""Gradescope's "Download Submissions" export: ``submission_metadata.yml`` beside one folder per submission.

The export is read as it comes, zipped or unzipped, at its top level or inside one folder. Nothing is
extracted: a folder inside the zip is graded in place (``submission.locate`` reads ``export.zip/submission_1``).
A metadata problem is reported by file and entry, and that submission is graded by its folder name.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import yaml

from ..grading.submission import ZIP_ERRORS
from ..model.roster import Entry, Roster, Student

METADATA = "submission_metadata.yml"
MAX_METADATA_BYTES = 64 << 20
SKIPPED = ("__MACOSX",)


class ExportError(Exception):
    """The path is not a Gradescope export nor a folder of submissions."""


@dataclass
class Export:
    """The submissions of an export, who made each, and what was wrong with the metadata."""

    submissions: dict[str, Path]
    roster: Roster
    messages: list[str] = field(default_factory=list)


def read(path: Path, exclude: tuple[Path, ...] = ()) -> Export | None:
    """The export at ``path`` (a folder or a zip); None for a folder without ``submission_metadata.yml``."""
    path = Path(path)
    if path.is_dir():
        return _read_folder(path, {p.resolve() for p in exclude})
    if path.is_file() and zipfile.is_zipfile(path):
        return _read_zip(path)
    raise ExportError(f"{path} is neither a folder of submissions nor a zip of a Gradescope export")


def _listed(entry: str) -> bool:
    return entry not in ("", ".", "..", METADATA) and not entry.startswith(".") and entry not in SKIPPED


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
    subfolders = [e for e in folder.iterdir() if e.is_dir() and _listed(e.name) and e.resolve() not in excluded]
    only = subfolders[0] if len(subfolders) == 1 else None
    return only if only is not None and (only / METADATA).is_file() else None


def _read_zip(path: Path) -> Export:
    try:
        with zipfile.ZipFile(path) as zf:
            names = [PurePosixPath(n) for n in zf.namelist()]
            prefix = _zip_root(names)
            if prefix is None:
                raise ExportError(f"{path.name} holds no {METADATA} (at its top level or inside one folder): "
                                  "pass the zip Gradescope's \"Download Submissions\" gives, or a folder of submissions")
            depth = len(prefix.parts)
            folders = sorted({n.parts[depth] for n in names if len(n.parts) > depth and n.parts[:depth] == prefix.parts})
            found = {name: path.joinpath(*prefix.parts, name) for name in folders if _listed(name)}
            info = zf.getinfo((prefix / METADATA).as_posix())
            if info.file_size > MAX_METADATA_BYTES:
                return _combine(found, _unreadable(METADATA, f"it is {info.file_size} bytes, more than {MAX_METADATA_BYTES}"))
            with zf.open(info) as f:
                return _combine(found, parse_metadata(f.read(MAX_METADATA_BYTES + 1), METADATA))
    except ZIP_ERRORS as exc:
        raise ExportError(f"{path.name} is not a readable zip ({exc}); download the export again") from None


def _zip_root(names: list[PurePosixPath]) -> PurePosixPath | None:
    """Where the metadata is: the top level, or the one folder that holds it (``assignment_1_export/``)."""
    if PurePosixPath(METADATA) in names:
        return PurePosixPath()
    roots = {n.parent for n in names if n.name == METADATA and len(n.parts) == 2 and _listed(n.parts[0])}
    return roots.pop() if len(roots) == 1 else None


@dataclass
class Metadata:
    """What ``submission_metadata.yml`` says: submitters of each well-formed entry, and the problems found."""

    students: dict[str, tuple[Student, ...]] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)  # entry -> what is wrong with it
    problems: list[str] = field(default_factory=list)  # about the file as a whole


def _unreadable(label: str, reason: str) -> Metadata:
    return Metadata(problems=[f"{label} could not be read ({reason}); every submission is graded by its folder name"])


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
                                  f"found a {type(data).__name__}; every submission is graded by its folder name"])
    found = Metadata()
    for key, entry in data.items():
        try:
            found.students[str(key)] = _submitters(entry)
        except ValueError as exc:
            found.notes[str(key)] = f"{label}: entry {key}: {exc}"
    return found


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
        raise ValueError("':submitters:' should be a list" + (" of at least one submitter" if isinstance(people, list) else ""))
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
    """Match folders with entries: an entry without a folder is listed as missing, a folder without one by name."""
    roster: Roster = {}
    messages = list(metadata.problems)
    for name in found:
        if name in metadata.students:
            roster[name] = Entry(metadata.students[name])
        else:
            note = metadata.notes.get(name) or (f"{METADATA} has no entry {name}" if not metadata.problems else metadata.problems[0])
            roster[name] = Entry(note=note)
            if name in metadata.notes or not metadata.problems:
                messages.append(f"{note}; graded by its folder name")
    for name in sorted(set(metadata.students) | set(metadata.notes)):
        if name not in found:
            roster[name] = Entry(metadata.students.get(name, ()), note=f"{METADATA} lists {name} but the export has no folder {name}/", missing=True)
            messages.append(f"{roster[name].note}: nothing to grade; it is left out of the upload (download the export again?)")
    return Export(found, roster, messages)
