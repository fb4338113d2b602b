"""Find the six module files of a submission (a folder or a zip) and stage them for the worker.

Only the expected module names are ever read; everything else is listed as ignored and
never extracted. Zip entries are read one by one with a size cap, so a zip bomb or a
path like ``../x`` cannot do harm; symlinks are refused so nothing outside the submission
(the reference, say) can be pulled in.
"""

from __future__ import annotations

import os
import shutil
import stat
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

MAX_MODULE_BYTES = 1 << 20
MAX_ZIP_ENTRIES = 10_000
SKIPPED_FOLDERS = {"__MACOSX", "__pycache__", ".git", ".ipynb_checkpoints"}


class SubmissionError(Exception):
    """The submission cannot be read at all (not a folder, not a zip, corrupt zip)."""


@dataclass
class Located:
    """The module sources found, and what the student should be told about the rest."""

    sources: dict[str, bytes] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)
    problems: dict[str, str] = field(default_factory=dict)
    root: str = ""


def locate(path: Path, modules: list[str], exclude: set[str] = frozenset()) -> Located:
    """Read the module files of the submission at ``path``; top-level names in ``exclude`` are not the student's."""
    path = Path(path)
    if path.is_dir():
        entries = [e for e in _dir_entries(path) if e.split("/")[0] not in exclude]
        return _from_entries(entries, modules, lambda e: _read_file(path / e), str(path))
    if path.is_file() and zipfile.is_zipfile(path):
        try:
            with zipfile.ZipFile(path) as zf:
                infos = {i.filename: i for i in zf.infolist()[:MAX_ZIP_ENTRIES] if not i.is_dir()}
                return _from_entries(list(infos), modules, lambda e: _read_zip_entry(zf, infos[e]), str(path))
        except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError) as exc:
            raise SubmissionError(f"{path.name} is not a readable zip file ({exc}); re-create it and submit again") from None
    if path.is_file():
        raise SubmissionError(f"{path.name} is neither a folder nor a .zip; submit a zip of the six module files")
    raise SubmissionError(f"{path} does not exist")


def _dir_entries(root: Path) -> list[str]:
    entries = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = [d for d in dirnames if d not in SKIPPED_FOLDERS]
        rel = Path(dirpath).relative_to(root)
        entries += [str(PurePosixPath(*rel.parts, f)) for f in filenames]
        if len(entries) > MAX_ZIP_ENTRIES:
            break
    return entries


def _read_file(path: Path) -> bytes:
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISREG(info.st_mode):
        raise ValueError("is a link or a special file, not a regular file")
    if info.st_size > MAX_MODULE_BYTES:
        raise ValueError(f"is {info.st_size} bytes, more than the {MAX_MODULE_BYTES} allowed")
    with open(path, "rb", opener=lambda p, flags: os.open(p, flags | os.O_NOFOLLOW)) as f:
        return f.read(MAX_MODULE_BYTES + 1)


def _read_zip_entry(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    if stat.S_ISLNK(info.external_attr >> 16):
        raise ValueError("is a symbolic link inside the zip")
    if info.file_size > MAX_MODULE_BYTES:
        raise ValueError(f"unpacks to {info.file_size} bytes, more than the {MAX_MODULE_BYTES} allowed")
    with zf.open(info) as f:
        data = f.read(MAX_MODULE_BYTES + 1)
    if len(data) > MAX_MODULE_BYTES:
        raise ValueError(f"unpacks to more than the {MAX_MODULE_BYTES} bytes allowed")
    return data


def _unsafe(entry: str) -> bool:
    parts = PurePosixPath(entry.replace("\\", "/")).parts
    return entry.startswith(("/", "\\")) or ".." in parts or (len(parts) > 0 and ":" in parts[0])


def _from_entries(entries: list[str], modules: list[str], read, label: str) -> Located:
    located = Located(root=label)
    safe = [e for e in entries if not _unsafe(e)]
    located.ignored += [f"{e} (unsafe path, not extracted)" for e in entries if _unsafe(e)]
    wanted = {f"{m}.py" for m in modules}
    top = [e for e in safe if "/" not in e and e in wanted]
    folders = sorted({e.split("/")[0] for e in safe if e.count("/") == 1 and e.split("/")[1] in wanted
                      and e.split("/")[0] not in SKIPPED_FOLDERS})
    if top:
        prefix = ""
    elif len(folders) == 1:
        prefix = folders[0] + "/"
    else:
        prefix = ""
        if len(folders) > 1:
            located.ignored.append(f"module files found in several folders ({', '.join(folders)}); put them at the top level or in exactly one folder")
    for module in modules:
        entry = prefix + f"{module}.py"
        if entry not in safe:
            located.problems[module] = f"{module}.py was not found in the submission"
            continue
        try:
            located.sources[module] = read(entry)
        except (ValueError, OSError, zipfile.BadZipFile, RuntimeError) as exc:
            located.problems[module] = f"{entry} could not be read: it {exc}"
    used = {prefix + f"{m}.py" for m in modules}  # a module that could not be read is reported as a problem, not as ignored
    located.ignored += sorted(e for e in safe if e not in used and not _is_noise(e))
    return located


def _is_noise(entry: str) -> bool:
    parts = entry.split("/")
    return any(p in SKIPPED_FOLDERS for p in parts) or parts[-1] in (".DS_Store",)


def stage(located: Located, parent: Path, name: str) -> Path:
    """Write the found modules, and nothing else, to a new folder ``parent/name``."""
    folder = Path(parent) / name
    folder.mkdir()
    os.chmod(folder, 0o755)
    for module, source in located.sources.items():
        target = folder / f"{module}.py"
        target.write_bytes(source)
        os.chmod(target, 0o644)
    return folder


def discard(folder: Path) -> None:
    """Remove a staged folder."""
    shutil.rmtree(folder, ignore_errors=True)
