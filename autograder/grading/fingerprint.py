"""What a score depends on, as digests: a score record carrying them can tell whether it is still current.

One digest per problem (its manifest and the limits in force; its test files, so its points; the recorded expected
values the tests compare with) and one for the harness (the code that runs and judges the tests, and the numpy/torch it
runs on). A change of a problem's digest makes every score of that problem stale; a change of the harness, every score.
A record also keeps one digest per module of the submission it graded (``files:<module>``: the module's source, or why
it was not read), so a submission whose files changed since is graded again, only the problems whose module changed.
"""

from __future__ import annotations

import hashlib
import json
import platform
import zipfile
from importlib import metadata
from pathlib import Path

from ..expected import records
from ..model import paths
from ..model.manifest import Assignment, Problem
from . import submission as submission_files

HARNESS = "harness"
FILES = "files:"  # the key of a submission's module in a record's fingerprint: FILES + module
# The packages whose code decides a score (reports only render it; staff and commands only drive the runs).
HARNESS_PACKAGES = ("grading", "testkit", "expected", "sandbox")
HARNESS_FILES = ("model/manifest.py", "model/scores.py")
LIBRARIES = ("numpy", "torch")


def _add(digest: hashlib._Hash, label: str, path: Path) -> None:
    digest.update(label.encode() + b"\0")
    try:
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
    except OSError:
        digest.update(b"<missing>")
    digest.update(b"\0")


def harness() -> str:
    """The digest of the grading code, the Python version and the numerical libraries' versions."""
    digest = hashlib.sha256()
    files = sorted(p for package in HARNESS_PACKAGES for p in (paths.PACKAGE_DIR / package).rglob("*.py"))
    files += [paths.PACKAGE_DIR / name for name in HARNESS_FILES]
    for path in files:
        _add(digest, path.relative_to(paths.PACKAGE_DIR).as_posix(), path)
    versions = [f"python {platform.python_version()}"]
    for library in LIBRARIES:
        try:
            versions.append(f"{library} {metadata.version(library)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{library} absent")
    digest.update("\n".join(versions).encode())
    return digest.hexdigest()[:24]


def store_files(module: str) -> list[Path]:
    """The files of the recorded values ``module``'s tests use: shipped with the zip, else the checkout's cache."""
    shipped = records.shipped_folder()
    folder = shipped if (shipped / f"{module}.json").is_file() else records.cached_folder(module)
    return [folder / f"{module}.json", folder / f"{module}.npz"]


def problem(problem_: Problem) -> str:
    """The digest of one problem: its problem.yaml, its test files and its recorded values (record them first)."""
    digest = hashlib.sha256()
    _add(digest, "problem.yaml", problem_.folder / "problem.yaml")
    # the limits in force, which may come from the assignment's problem_defaults rather than problem.yaml
    digest.update(f"limits {problem_.limits}\0".encode())
    for kind, files in (("public", problem_.public_tests), ("hidden", problem_.hidden_tests)):
        for path in files:
            _add(digest, f"{kind}:{path.name}", path)
    digest.update(_store_content(*store_files(problem_.module)).encode())
    return digest.hexdigest()[:24]


def _store_content(index: Path, arrays: Path) -> str:
    """The recorded values as content, not bytes: every recorded call (by its key) with the CRC and size of each of its
    arrays, and the names of the mistakes recorded on it. Recording the same sources again gives the same content,
    though not always the same bytes (calls recorded in another order number their arrays otherwise), and the shared
    cache records a problem again whenever other checkouts' recordings pushed it out."""
    try:
        data = json.loads(index.read_text(encoding="utf-8"))
        with zipfile.ZipFile(arrays) as zf:
            members = {i.filename: (i.CRC, i.file_size) for i in zf.infolist()}

        def blobs(ref: list) -> list:
            tree, first, count = ref
            return [tree, [members.get(f"arr_{n}.npy") for n in range(first, first + count)]]

        calls = []
        for call in data.get("calls", []):
            item = {k: blobs(v) if k in ("inputs", "output") else v for k, v in call.items()}
            if "mistakes" in item:  # which mistakes were recorded, not their outputs: those only choose a hint, and a
                item["mistakes"] = sorted(
                    item["mistakes"]
                )  # mistake that draws from the global RNG records others each time
            calls.append(item)
        calls.sort(key=lambda item: str(item.get("key")))
        return json.dumps({**data, "calls": calls}, sort_keys=True)
    except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile) as exc:
        return f"<unreadable: {type(exc).__name__}>"


def of(assignment: Assignment) -> dict[str, str]:
    """Every problem's digest by module, and the harness's under ``HARNESS``."""
    return {**{p.module: problem(p) for p in assignment.problems}, HARNESS: harness()}


def submission(path: Path, modules: list[str]) -> dict[str, str]:
    """The digest of each module of the submission at ``path``, by ``FILES + module``: its source where it was read,
    else why it was not (missing, found twice, a near-miss name, unreadable), so that renaming or fixing a file
    counts."""
    try:
        located = submission_files.locate(Path(path), modules)
        texts = {
            m: located.sources[m] if m in located.sources else f"<{located.problems.get(m, '')}>".encode()
            for m in modules
        }
    except Exception as exc:  # noqa: BLE001 - a submission that cannot be read has that as its content
        where = str(exc).replace(
            str(path), "<submission>"
        )  # the same wherever the export is (shards on other machines)
        texts = dict.fromkeys(modules, f"<not read: {type(exc).__name__}: {where}>".encode())
    return {FILES + m: hashlib.sha256(text).hexdigest()[:24] for m, text in texts.items()}


def stale(recorded: dict[str, str], current: dict[str, str]) -> list[str]:
    """What changed since ``recorded``: ``[HARNESS]`` if the harness did (every problem is stale then), else the keys
    whose digest differs (a problem, or ``FILES + module`` for a submission's module), in ``current``'s order; a
    record without digests is stale as a whole."""
    if not recorded or recorded.get(HARNESS) != current.get(HARNESS):
        return [HARNESS]
    return [name for name, digest in current.items() if name != HARNESS and recorded.get(name) != digest]


def problems_of(changed: list[str]) -> list[str]:
    """The modules to grade again for what ``stale`` found (each once, in its order); never called with
    ``[HARNESS]``."""
    return list(dict.fromkeys(name.removeprefix(FILES) for name in changed if name != HARNESS))
