"""Where a problem's recorded expected values come from, and the lookups the tests make.

The Gradescope zip and the students' handout ship each problem's ``Store`` next to its tests
(``assignments/expected/``); a staff checkout keeps them in a cache folder that
``autograder.staff.recording`` rebuilds (in a process of its own, which imports torch) whenever a
reference, a test, a mistake or the harness code that records them changes.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

from .. import settings
from ..model import manifest, paths
from ..settings import KEEP_CACHED
from .store import GET_AGAIN, MissingExpected, Store, decode

# Harness files whose change changes what gets recorded (the cache's key includes them).
RECORDING_CODE = (
    "testkit/calls.py",
    "testkit/inputs.py",
    "testkit/scaling.py",
    "expected/store.py",
    "expected/records.py",
    "staff/recording.py",
    "staff/solutions.py",
    "sandbox/codec.py",
    "sandbox/worker/wire.py",
    "sandbox/worker/callables.py",
    "sandbox/worker/serving.py",
    "settings.py",
)
# The user's cache (or AUTOGRADER_EXPECTED_CACHE), one folder per problem and fingerprint of its sources: checkouts and
# their copies with the same content share it, and grading never writes into the project.
CACHE = Path(settings.AUTOGRADER_EXPECTED_CACHE.value()
             or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "autograder" / "expected")
SHIPPED_NAME = "expected"


class RecordingFailed(manifest.ManifestError):
    """The staff checkout's reference (or its tests) could not record the expected values: the assignment's sources
    must be fixed before anything is graded against them."""

    label = "the expected values could not be recorded"


def signature(module: str, func: str) -> inspect.Signature | None:
    """The reference's signature of ``module.func`` (recorded), to name the arguments of a call."""
    return store(module).signature(func)


def hint(module: str, mistake: str) -> str:
    """The hint a known mistake earns."""
    return store(module).hints[mistake]


# ---- where the store of a problem comes from ----


def shipped_folder(root: Path | None = None) -> Path:
    """Where the zip and the handout carry the stores: ``assignments/expected/``."""
    return (root or paths.ASSIGNMENTS) / SHIPPED_NAME


def fingerprint(module: str) -> str:
    """A digest of everything the records of ``module`` depend on: reference, tests, mistakes, recording code."""
    folder = paths.ASSIGNMENTS / module
    # Of the manifests only the test files listed count: limits and the Gradescope settings change no value.
    try:
        problem = manifest.load().problem(module)
        listed = json.dumps(
            [[str(p.relative_to(problem.folder.resolve())), hidden] for p, hidden in problem.test_files(True)]
        )
    except (manifest.ManifestError, KeyError, ValueError):
        listed = "<unreadable>"
    files = [paths.REFERENCE / f"{module}.py", folder / manifest.CALLABLES_FILE]
    files += sorted((folder / "tests").glob("*.py")) + sorted((folder / "mistakes").glob("*.py"))
    named = [(str(path.relative_to(paths.ROOT)), path) for path in files]
    named += [(f"autograder/{name}", paths.PACKAGE_DIR / name) for name in RECORDING_CODE]
    return _digest(listed, tuple((name, str(path), _version(path)) for name, path in named))


def _version(path: Path) -> tuple[int, int, int] | None:
    """What tells one version of a file from another without reading it (None: no such file)."""
    try:
        info = path.stat()
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size, info.st_ino) if stat.S_ISREG(info.st_mode) else None


@functools.lru_cache(maxsize=64)
def _digest(listed: str, files: tuple[tuple[str, str, tuple[int, int, int] | None], ...]) -> str:
    """``fingerprint`` for these versions of the files (a run asks for it several times per problem; reading is the
    cost)."""
    digest = hashlib.sha256(listed.encode() + b"\0")
    for name, path_text, _stamp in files:
        path = Path(path_text)
        digest.update(name.encode() + b"\0")
        digest.update(path.read_bytes() if path.is_file() else b"<missing>")
    return digest.hexdigest()


def cached_folder(module: str, fingerprint_: str | None = None) -> Path:
    """The cache folder of ``module``'s records for its current sources."""
    return CACHE / f"{module}-{(fingerprint_ or fingerprint(module))[:20]}"


def _cache_fresh(module: str, fingerprint_: str) -> bool:
    return (cached_folder(module, fingerprint_) / f"{module}.json").is_file()


def refresh_cache(modules: list[str]) -> dict[str, str]:
    """Re-record (in a separate process, which imports torch) the problems whose cached records are stale; the
    fingerprint of each problem's records, as they now are in the cache."""
    prints = {m: fingerprint(m) for m in modules}
    stale = [m for m in modules if not _cache_fresh(m, prints[m])]
    if not stale:
        return prints
    CACHE.mkdir(parents=True, exist_ok=True, mode=0o700)  # trusted data: only this user may write it
    with _locked(CACHE / ".lock"):
        stale = [m for m in stale if not _cache_fresh(m, prints[m])]  # another process may have recorded them meanwhile
        if not stale:
            return prints
        code = str(paths.PACKAGE_DIR.parent)
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [code, os.environ.get("PYTHONPATH")])))
        proc = subprocess.run(
            [sys.executable, "-m", "autograder.staff.recording", "--cache", *stale],
            cwd=code,
            env=env,
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            raise RecordingFailed(
                f"recording the expected values of {', '.join(stale)} failed (fix the reference or the tests, then "
                f"run the same command again):\n{proc.stdout}{proc.stderr}"
            )
    return prints | {m: fingerprint(m) for m in stale}  # what the recording read (a file may have changed meanwhile)


def cached_store(module: str, fingerprint_: str | None = None) -> Store:
    """``module``'s records in the staff checkout's cache, recorded first if its sources changed (unless
    ``fingerprint_`` says which records are current: ``refresh_cache`` just said so)."""
    fingerprint_ = fingerprint_ or refresh_cache([module])[module]
    try:
        return Store.load(cached_folder(module, fingerprint_), module)
    except MissingExpected:  # damaged in the cache (a full disk, a killed copy): recorded again
        (cached_folder(module, fingerprint_) / f"{module}.json").unlink(missing_ok=True)
        return Store.load(cached_folder(module, refresh_cache([module])[module]), module)


def save_cached(store_: Store, fingerprint_: str) -> None:
    """Put a freshly recorded store in the cache, and drop the oldest fingerprints of its problem."""
    store_.save(cached_folder(store_.module, fingerprint_))
    older = sorted(CACHE.glob(f"{store_.module}-*"), key=lambda p: p.stat().st_mtime, reverse=True)[KEEP_CACHED:]
    for folder in older:
        for file in folder.iterdir():
            file.unlink(missing_ok=True)
        folder.rmdir()


class _locked:
    """An exclusive lock on a file (where the platform has ``fcntl``; staff checkouts only)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __enter__(self) -> None:
        self.file = open(self.path, "a")  # noqa: SIM115 - closed in __exit__
        try:
            import fcntl

            fcntl.flock(self.file, fcntl.LOCK_EX)
        except ImportError:
            pass

    def __exit__(self, *exc: object) -> None:
        self.file.close()


_just_checked: dict[
    str, str
] = {}  # fingerprints ``preload`` found current, so that ``store`` does not read every file again
# Why a module's records could not be opened or recorded: each later lookup fails at once, never tries (or records)
# again until the next ``preload``.
_unusable: dict[str, str] = {}


@functools.cache
def store(module: str) -> Store:
    """The records of ``module``: shipped with the zip or handout, else the staff checkout's cache (re-recorded if
    stale)."""
    if module in _unusable:
        raise MissingExpected(_unusable[module])
    shipped = shipped_folder()
    if (shipped / f"{module}.json").is_file():
        return Store.load(shipped, module)
    if not (paths.REFERENCE / f"{module}.py").is_file():
        raise MissingExpected(
            f"no expected values are recorded for {module} (assignments/{SHIPPED_NAME}/{module}.json is missing); get "
            f"it again ({GET_AGAIN})"
        )
    try:
        return cached_store(module, _just_checked.pop(module, None))
    except (MissingExpected, RecordingFailed) as exc:  # every later lookup says so at once, and records nothing again
        _unusable[module] = str(exc)
        raise MissingExpected(str(exc)) from None  # a test that meets it cannot be judged: the grader's fault


def preload(modules: list[str]) -> dict[str, str]:
    """Open the records of ``modules`` now, before any student code runs (stale caches are re-recorded in one
    process). Returns why some could not be opened (missing, damaged): those problems' tests that need a record cannot
    be judged, a grader fault; a caller that grades many submissions refuses to start instead."""
    for module in modules:
        _unusable.pop(module, None)
    if not all((shipped_folder() / f"{m}.json").is_file() for m in modules) and all(
        (paths.REFERENCE / f"{m}.py").is_file() for m in modules
    ):
        _just_checked.update(refresh_cache(modules))
    for module in modules:
        try:
            store(module)
        except MissingExpected as exc:
            _unusable[module] = str(exc)
    _just_checked.clear()  # a store loaded before holds; a later load checks its files again
    return {module: _unusable[module] for module in modules if module in _unusable}


def reference_output(module: str, func: str, args: tuple, kwargs: dict) -> Any:
    """The reference's recorded output for this exact call."""
    entry = store(module).find(func, args, kwargs)
    if entry is None or entry.output is None:
        raise MissingExpected(
            f"no expected value is recorded for {module}.{func} with these arguments: the recorded values "
            "and the tests are out of sync (a fault of the grader, not of the submission)"
        )
    return decode(entry.output)


def mistake_outputs(module: str, func: str, args: tuple, kwargs: dict) -> list[tuple[str, Any]]:
    """(mistake, its output) for each known mistake recorded on this call whose output differs from the reference's."""
    entry = store(module).find(func, args, kwargs)
    return [] if entry is None else [(name, decode(value)) for name, value in entry.mistakes.items()]


