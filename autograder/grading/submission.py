"""Find the assignment's module files in a submission (a folder or a zip) and stage them for the worker.

Only the expected module names are ever read, wherever they are in the submission (a zipped copy of the whole handout
folder works); a name found twice is refused with both paths, and everything else is listed as ignored and never
extracted, a near-miss (``qkv_arithmetic (1).py``) first and named with the module it probably is. Zip entries are read
one by one with a size cap, so a zip bomb or a path like ``../x`` cannot do harm; symlinks are refused so nothing
outside the submission (the reference, say) can be pulled in. A submission may also be a folder inside a zip
(``export.zip/submission_1``: a Gradescope export read in place), and a submission holding no module file but one zip is
read from that zip (one level deep, through the same caps).
"""

from __future__ import annotations

import codecs
import contextlib
import difflib
import io
import lzma
import os
import re
import stat
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ..model import scores
from ..sandbox import boundary
from ..settings import MAX_MODULE_BYTES, MAX_NESTED_ZIP_BYTES, MAX_ZIP_ENTRIES

# Never the student's modules: a Mac's zip metadata, caches, version control, a virtual environment made in the folder.
SKIPPED_FOLDERS = {
    "__MACOSX",
    "__pycache__",
    ".pytest_cache",
    ".git",
    ".ipynb_checkpoints",
    ".venv",
    "venv",
    "site-packages",
    "node_modules",
}
# Every way reading a zip member can fail on damaged bytes: a bad CRC or header, and each decompressor's own error
# (a damaged deflated member raises zlib.error, an xz one LZMAError; bz2 raises OSError).
ZIP_ERRORS = (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError, EOFError, zlib.error, lzma.LZMAError)


def _why(exc: Exception) -> str:
    """Why a file could not be read, after "could not be read: ": the harness's own reasons read after "it" ("it is
    a link"); a damaged zip's, in the zip library's words, as damage."""
    if isinstance(exc, (ValueError, SubmissionError)):
        return f"it {exc}"
    return f"its bytes in the zip are damaged ({exc})"


class SubmissionError(Exception):
    """The submission cannot be read at all (not a folder, not a zip, corrupt zip)."""


@dataclass
class Located:
    """The module sources found, and what the student should be told about the rest."""

    sources: dict[str, bytes] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)
    problems: dict[str, str] = field(default_factory=dict)  # module -> why it is not among the sources
    missing: list[str] = field(
        default_factory=list
    )  # the modules of ``problems`` that are not in the submission at all
    root: str = ""
    paths: dict[str, str] = field(default_factory=dict)  # module -> where its file was, relative to the submission
    near_misses: dict[str, str] = field(default_factory=dict)  # an ignored file -> the module its name is close to
    unusable: list[str] = field(default_factory=list)  # the modules of ``problems`` found but not usable as submitted

    def kind(self, module: str) -> str:
        """Why ``module`` is not among the sources, as a score kind: missing (or misnamed), not usable as submitted
        (the student's packaging), or unreadable (damaged bytes)."""
        if module in self.missing:
            return scores.MISNAMED if module in self.near_misses.values() else scores.MISSING
        return scores.PACKAGING if module in self.unusable else scores.UNREADABLE


@dataclass
class _Tree:
    """The files of a submission: their relative names, how to read one, how to open one that is a zip."""

    label: str
    entries: list[str]
    read: Callable[[str], bytes]
    open_zip: Callable[[str], contextlib.AbstractContextManager[zipfile.ZipFile]]


def locate(path: Path, modules: list[str], exclude: set[str] = frozenset()) -> Located:
    """Read the module files of the submission at ``path``; top-level names in ``exclude`` are not the student's."""
    path = Path(path)
    if path.is_dir():
        entries = [e for e in _dir_entries(path) if e.split("/")[0] not in exclude]
        return _locate_in(
            _Tree(str(path), entries, lambda e: _read_file(path / e), lambda e: _open_zip_file(path / e)), modules
        )
    if path.is_file() and zipfile.is_zipfile(path):
        return _locate_in_zip_file(path, "", modules, str(path))
    if path.is_file():
        raise SubmissionError(f"{path.name} is neither a folder nor a .zip; submit a zip of the module files")
    inside = _enclosing_zip(path)
    if inside is not None:
        return _locate_in_zip_file(inside[0], inside[1], modules, str(path))
    raise SubmissionError(f"{path} does not exist")


def _enclosing_zip(path: Path) -> tuple[Path, str] | None:
    """For ``a.zip/some/folder``: the zip file and the folder's prefix inside it (``some/folder/``)."""
    for parent in path.parents:
        if parent.is_file():
            return (parent, path.relative_to(parent).as_posix() + "/") if zipfile.is_zipfile(parent) else None
    return None


def _locate_in_zip_file(zip_path: Path, prefix: str, modules: list[str], label: str) -> Located:
    try:
        with zipfile.ZipFile(zip_path) as zf:
            return _locate_in(_zip_tree(zf, prefix, label), modules)
    except ZIP_ERRORS as exc:
        raise SubmissionError(
            f"{zip_path.name} is not a readable zip file ({exc}); re-create it and submit again"
        ) from None


def _zip_tree(zf: zipfile.ZipFile, prefix: str, label: str) -> _Tree:
    """The files of ``zf`` under ``prefix`` (the whole zip for ``""``), at most MAX_ZIP_ENTRIES of them."""
    under = [i for i in zf.infolist() if i.filename.startswith(prefix)]
    if prefix and not under:
        raise SubmissionError(f"{label} does not exist (no {prefix} in the zip)")
    kept = [
        i for i in under if not i.is_dir() and not _is_noise(i.filename[len(prefix) :])
    ]  # a zipped venv cannot crowd out the modules
    infos = {i.filename[len(prefix):]: i for i in kept[:MAX_ZIP_ENTRIES]}
    return _Tree(label, list(infos), lambda e: _read_zip_entry(zf, infos[e]), lambda e: _open_zip_entry(zf, infos[e]))


def _locate_in(tree: _Tree, modules: list[str]) -> Located:
    """The modules of ``tree``; with none at all but a single zip at its top level, those of that zip. What it says of
    the submission's names (ignored files, why a module could not be read) is the grader's text (``sandbox.boundary``):
    a name may hold any byte, which no writer should have to guard against."""
    located = _located_in(tree, modules)
    located.ignored = [boundary.text(e) for e in located.ignored]
    located.problems = {m: boundary.text(why) for m, why in located.problems.items()}
    return located


def _located_in(tree: _Tree, modules: list[str]) -> Located:
    located = _from_entries(tree.entries, modules, tree.read, tree.label)
    inner = _single_zip(tree.entries)
    if located.sources or inner is None or set(located.missing) != set(located.problems):
        return located
    try:
        with tree.open_zip(inner) as zf:
            nested = _zip_tree(zf, "", f"{tree.label}/{inner}")
            found = _from_entries(nested.entries, modules, nested.read, nested.label)
    except (ValueError, SubmissionError, *ZIP_ERRORS) as exc:
        located.ignored = [e if e != inner else f"{inner} (could not be read: {_why(exc)})" for e in located.ignored]
        # The modules are in a zip that cannot be read, not absent: unreadable, so staff see it and no 0 is uploaded.
        located.problems = {m: f"{inner} could not be read: {_why(exc)}" for m in located.problems}
        located.missing = []
        return located
    found.ignored = [e for e in located.ignored if e != inner] + [f"{inner}/{e}" for e in found.ignored]
    return found


def _single_zip(entries: list[str]) -> str | None:
    zips = [e for e in entries if len(_parts(e)) == 1 and e.lower().endswith(".zip") and not _is_noise(e)]
    return zips[0] if len(zips) == 1 else None


def _dir_entries(root: Path) -> list[str]:
    entries = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = [d for d in dirnames if d not in SKIPPED_FOLDERS]
        rel = Path(dirpath).relative_to(root)
        entries += [str(PurePosixPath(*rel.parts, f)) for f in filenames]
        if len(entries) > MAX_ZIP_ENTRIES:
            break
    return entries


def _no_follow(path: str, flags: int) -> int:
    # Windows has no O_NOFOLLOW (the lstat before each open is the check there).
    return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0))


def _python_text(data: bytes) -> bytes:
    """``data``, unless no Python could import it as a module's source (raises ``ValueError`` saying why)."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) or data.count(b"\x00") * 3 > len(data):
        raise ValueError("is saved as UTF-16 (some Windows editors call it 'Unicode'), which Python cannot import; "
                         "save it as UTF-8 and submit again")
    if b"\x00" in data:
        raise ValueError("holds NUL bytes, so it is not Python source; submit the .py file you wrote")
    return data


def _read_file(path: Path) -> bytes:
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISREG(info.st_mode):
        raise ValueError("is a link or a special file, not a regular file")
    if info.st_size > MAX_MODULE_BYTES:
        raise ValueError(f"is {info.st_size} bytes, more than the {MAX_MODULE_BYTES} allowed")
    with open(path, "rb", opener=_no_follow) as f:
        return f.read(MAX_MODULE_BYTES + 1)


def _read_zip_entry(zf: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int = MAX_MODULE_BYTES) -> bytes:
    if stat.S_ISLNK(info.external_attr >> 16):
        raise ValueError("is a symbolic link inside the zip")
    if info.file_size > limit:
        raise ValueError(f"unpacks to {info.file_size} bytes, more than the {limit} allowed")
    with zf.open(info) as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"unpacks to more than the {limit} bytes allowed")
    return data


@contextlib.contextmanager
def _open_zip_file(path: Path) -> Iterator[zipfile.ZipFile]:
    """A zip inside a submission folder, opened without following links."""
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISREG(info.st_mode):
        raise ValueError("is a link or a special file, not a regular file")
    with open(path, "rb", opener=_no_follow) as f, zipfile.ZipFile(f) as zf:
        yield zf


@contextlib.contextmanager
def _open_zip_entry(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> Iterator[zipfile.ZipFile]:
    """A zip inside a zip, read into memory through its own size cap."""
    with zipfile.ZipFile(io.BytesIO(_read_zip_entry(zf, info, MAX_NESTED_ZIP_BYTES))) as inner:
        yield inner


def _parts(entry: str) -> list[str]:
    """The folders and file name of a path in a submission. A backslash separates them too: Windows' own zip tools
    (PowerShell's Compress-Archive) write it, and a zip extracted elsewhere keeps it in the file's name."""
    return entry.replace("\\", "/").split("/")


def _unsafe(entry: str) -> bool:
    parts = PurePosixPath(entry.replace("\\", "/")).parts
    return entry.startswith(("/", "\\")) or ".." in parts or (len(parts) > 0 and ":" in parts[0])


def _from_entries(entries: list[str], modules: list[str], read, label: str) -> Located:
    """Each module found by its file name at any depth: once is read, twice or more is refused with every path, and a
    file whose name is close to a module's (``qkv_arithmetic (1).py``) is named as what it probably is."""
    located = Located(root=label)
    safe = [e for e in entries if not _unsafe(e)]
    located.ignored += [f"{e} (unsafe path, not extracted)" for e in entries if _unsafe(e)]
    found: dict[str, list[str]] = {m: [] for m in modules}
    for entry in safe:
        name = _parts(entry)[-1]
        if name.endswith(".py") and name[:-3] in found and not _is_noise(entry):
            found[name[:-3]].append(entry)
    used = set()
    for module in modules:
        where = sorted(found[module], key=lambda e: (len(_parts(e)), e))
        used.update(where)  # a module that could not be read is reported as a problem, not as ignored
        if not where:
            located.problems[module] = f"{module}.py was not found in the submission"
            located.missing.append(module)
        elif len(where) > 1:
            located.problems[module] = (
                f"{module}.py was found {len(where)} times ({', '.join(where)}); keep exactly one "
                "copy in the submission and submit again"
            )
            located.unusable.append(module)
        else:
            try:
                located.sources[module] = _python_text(read(where[0]))
                located.paths[module] = where[0]
            except ValueError as exc:  # the file as submitted: a link, too large
                located.problems[module] = f"{where[0]} could not be read: {_why(exc)}"
                located.unusable.append(module)
            except ZIP_ERRORS as exc:
                located.problems[module] = f"{where[0]} could not be read: {_why(exc)}"
    rest = sorted(e for e in safe if e not in used and not _is_noise(e))
    for entry in rest:
        module = near_miss(_parts(entry)[-1], modules)
        if module is not None:
            located.near_misses[entry] = module
            if module in located.missing:
                located.problems[module] += f"; did you mean {entry}? Rename it to {module}.py"
    # Near-misses first: a long list of ignored files is cut, and these are the ones a student must see.
    located.ignored += [
        f"{e} (did you mean {m}.py? only that exact name is read)" for e, m in located.near_misses.items()
    ]
    located.ignored += [e for e in rest if e not in located.near_misses]
    return located


_COPY_MARKS = re.compile(r"(\s*\(\d+\)|\s*-?\s*copy(\s*\d+)?|^copy of\s+)", re.IGNORECASE)


def near_miss(name: str, modules: list[str]) -> str | None:
    """The module a file name probably means (``qkv_arithmetic (1).py``, ``complexity_solution.py``,
    ``Shift_Matrix.py``, ``qkv_arithmatic.py``), or None."""
    stem, dot, ext = name.rpartition(".")
    if not dot or ext.lower() not in ("py", "ipynb", "txt", "py~") or not stem:
        return None
    plain = _COPY_MARKS.sub("", stem).strip().lower().replace("-", "_").replace(" ", "_")
    if ext.lower() == "py" and stem in modules:
        return None
    for module in modules:
        if plain == module or plain.startswith(module + "_") or plain.endswith("_" + module):
            return module
    close = difflib.get_close_matches(plain, modules, n=1, cutoff=0.85)
    return close[0] if close else None


def _is_noise(entry: str) -> bool:
    parts = _parts(entry)
    return any(p in SKIPPED_FOLDERS for p in parts) or parts[-1] in (".DS_Store",)
