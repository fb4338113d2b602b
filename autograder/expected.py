"""Expected values recorded in advance: the reference's outputs and the known mistakes' outputs.

One store per problem, looked up by the exact inputs of a call (a digest of the function name
and the call's encoded arguments; a close comparison finds inputs rebuilt on another machine).
The Gradescope zip and the students' handout ship the store next to the problem's tests; a staff
checkout keeps it in a cache folder that ``recording`` rebuilds whenever a reference, a test, a
mistake or the harness code that records them changes. Nothing here needs torch or the reference.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import math
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from . import paths
from .sandbox import wire
from .sandbox.client import SandboxFault

# Harness files whose change changes what gets recorded (the cache's key includes them).
RECORDING_CODE = ("calls.py", "expected.py", "recording.py", "inputs.py", "solutions.py", "sandbox/wire.py", "sandbox/callables.py",
                  "sandbox/serving.py")
# The user's cache (or AUTOGRADER_EXPECTED_CACHE), one folder per problem and fingerprint of its sources: checkouts and
# their copies with the same content share it, and grading never writes into the project.
CACHE = Path(os.environ.get("AUTOGRADER_EXPECTED_CACHE")
             or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "autograder" / "expected")
KEEP_CACHED = 6  # fingerprints kept per problem (older ones are removed when a new one is recorded)
SHIPPED_NAME = "expected"
# Inputs larger than this are kept as their digest only (they come from seeded numpy draws, the same bits everywhere).
KEEP_INPUT_ELEMENTS = 8192


class MissingExpected(SandboxFault):
    """No expected value was recorded for a call the tests make: the records and the tests are out of sync (a grader fault)."""


def to_array(value: Any) -> tuple[np.ndarray, str] | None:
    """How the grader encodes arrays (``TensorArray``s are marked tensors by the wire itself)."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        return value.detach().cpu().numpy(), "tensor"
    if isinstance(value, np.ndarray):
        return value, "ndarray"
    if isinstance(value, np.generic):
        return np.asarray(value), "scalar"
    return None


GRADER_MAKE = {"tensor": lambda a: a, "generator": wire.Seeded, "named": wire.Named}


def encode_inputs(args: tuple, kwargs: dict) -> tuple[Any, list[np.ndarray]]:
    """A call's inputs as one encoded tree and its arrays."""
    return wire.encode([list(args), dict(kwargs)], to_array)


def exact_key(func: str, tree: Any, arrays: list[np.ndarray]) -> str:
    """A digest of a call's function and inputs, bit for bit."""
    digest = hashlib.sha256(func.encode() + json.dumps(tree, sort_keys=True).encode())
    for array in arrays:
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()


@dataclass
class Entry:
    """What is recorded for one call: its inputs, the reference's output, the mistakes' outputs."""

    func: str
    inputs: tuple[Any, list[np.ndarray]]
    public: bool
    output: tuple[Any, list[np.ndarray]] | None = None
    mistakes: dict[str, tuple[Any, list[np.ndarray]]] = field(default_factory=dict)
    exact_only: bool = False  # large inputs are kept as their digest only: found by an exact match alone


@dataclass
class Store:
    """Every recorded call of one problem, the hints of its mistakes and the reference's signatures."""

    module: str
    entries: dict[str, Entry] = field(default_factory=dict)
    hints: dict[str, str] = field(default_factory=dict)
    signatures: dict[str, list[list]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def find(self, func: str, args: tuple, kwargs: dict) -> Entry | None:
        """The entry of this call: by its exact digest, else by a close comparison of the inputs."""
        tree, arrays = encode_inputs(args, kwargs)
        entry = self.entries.get(exact_key(func, tree, arrays))
        if entry is not None:
            return entry
        for candidate in list(self.entries.values()):
            if candidate.func == func and not candidate.exact_only and _same(tree, arrays, *candidate.inputs):
                return candidate
        return None

    def save(self, folder: Path, public_only: bool = False) -> tuple[Path, Path]:
        """Write ``<module>.json`` and ``<module>.npz`` under ``folder`` (public calls only for the handout)."""
        index, blobs = [], []

        def put(value: tuple[Any, list[np.ndarray]]) -> list:
            tree, arrays = value
            blobs.extend(arrays)
            return [tree, len(blobs) - len(arrays), len(arrays)]

        for key, e in self.entries.items():
            if public_only and not e.public or e.output is None and not e.mistakes:
                continue
            small = sum(int(a.size) for a in e.inputs[1]) <= KEEP_INPUT_ELEMENTS
            item = {"key": key, "func": e.func, "public": e.public, "inputs": put(e.inputs if small else (e.inputs[0], []))}
            if not small:
                item["exact_only"] = True
            if e.output is not None:
                item["output"] = put(e.output)
            if e.mistakes:
                item["mistakes"] = {name: put(value) for name, value in e.mistakes.items()}
            index.append(item)
        folder.mkdir(parents=True, exist_ok=True)
        json_path, npz_path = folder / f"{self.module}.json", folder / f"{self.module}.npz"
        data = {"module": self.module, "hints": self.hints, "signatures": self.signatures, "calls": index}
        tmp_json, tmp_npz = json_path.with_suffix(f".json.{os.getpid()}"), npz_path.with_suffix(f".{os.getpid()}.npz")
        tmp_json.write_text(json.dumps(data), encoding="utf-8")
        np.savez_compressed(tmp_npz, *blobs)
        tmp_npz.replace(npz_path)
        tmp_json.replace(json_path)
        return json_path, npz_path

    @classmethod
    def load(cls, folder: Path, module: str) -> Store:
        """Read what ``save`` wrote: the index now, each array when a lookup needs it (the grader's memory is the student's room)."""
        data = json.loads((folder / f"{module}.json").read_text(encoding="utf-8"))
        npz = np.load(folder / f"{module}.npz", allow_pickle=False)
        lock = threading.Lock()

        def get(item: list) -> tuple[Any, _Blobs]:
            tree, first, count = item
            return tree, _Blobs(npz, lock, first, count)

        store = cls(module, hints=data["hints"], signatures=data["signatures"])
        for item in data["calls"]:
            store.entries[item["key"]] = Entry(item["func"], get(item["inputs"]), item["public"],
                                               get(item["output"]) if "output" in item else None,
                                               {name: get(v) for name, v in item.get("mistakes", {}).items()},
                                               exact_only=item.get("exact_only", False))
        return store


class _Blobs:
    """The arrays of one recorded value, read from the store's .npz file on each access (not kept in memory)."""

    def __init__(self, npz: Any, lock: threading.Lock, first: int, count: int) -> None:
        self.npz, self.lock, self.first, self.count = npz, lock, first, count

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, index: int) -> np.ndarray:
        if not 0 <= index < self.count:
            raise IndexError(index)
        with self.lock:
            return self.npz[f"arr_{self.first + index}"]

    def __iter__(self) -> Iterator[np.ndarray]:
        return (self[i] for i in range(self.count))


def decode(value: tuple[Any, list[np.ndarray]]) -> Any:
    """A recorded value as the grader sees values that crossed the sandbox (numpy arrays, plain data)."""
    tree, arrays = value
    return wire.decode(tree, arrays, GRADER_MAKE)


def signature(module: str, func: str) -> inspect.Signature | None:
    """The reference's signature of ``module.func`` (recorded), to name the arguments of a call."""
    params = store(module).signatures.get(func)
    if params is None:
        return None
    return inspect.Signature([inspect.Parameter(name, getattr(inspect.Parameter, kind), default=None if has_default else inspect.Parameter.empty)
                              for name, kind, has_default in params])


def hint(module: str, mistake: str) -> str:
    """The hint a known mistake earns."""
    return store(module).hints[mistake]


# ---- where the store of a problem comes from ----

def shipped_folder(root: Path | None = None) -> Path:
    """Where the zip and the handout carry the stores: ``assignments/expected/``."""
    return (root or paths.ASSIGNMENTS) / SHIPPED_NAME


def fingerprint(module: str) -> str:
    """A digest of everything the records of ``module`` depend on: reference, tests, mistakes, recording code."""
    digest = hashlib.sha256()
    folder = paths.ASSIGNMENTS / module
    # Of the manifests only the test files listed count: limits, points and the Gradescope settings change no value.
    try:
        listed = json.dumps(yaml.safe_load((folder / "problem.yaml").read_text(encoding="utf-8")).get("tests"), sort_keys=True)
    except (OSError, AttributeError, yaml.YAMLError):
        listed = "<unreadable>"
    digest.update(listed.encode() + b"\0")
    files = [paths.REFERENCE / f"{module}.py"]
    files += sorted((folder / "tests").glob("*.py")) + sorted((folder / "mistakes").glob("*.py"))
    named = [(str(path.relative_to(paths.ROOT)), path) for path in files]
    named += [(f"autograder/{name}", paths.PACKAGE_DIR / name) for name in RECORDING_CODE]
    for name, path in named:
        digest.update(name.encode() + b"\0")
        digest.update(path.read_bytes() if path.is_file() else b"<missing>")
    return digest.hexdigest()


def cached_folder(module: str, fingerprint_: str | None = None) -> Path:
    """The cache folder of ``module``'s records for its current sources."""
    return CACHE / f"{module}-{(fingerprint_ or fingerprint(module))[:20]}"


def _cache_fresh(module: str) -> bool:
    return (cached_folder(module) / f"{module}.json").is_file()


def refresh_cache(modules: list[str]) -> None:
    """Re-record (in a separate process, which imports torch) the problems whose cached records are stale."""
    stale = [m for m in modules if not _cache_fresh(m)]
    if not stale:
        return
    CACHE.mkdir(parents=True, exist_ok=True, mode=0o700)  # trusted data: only this user may write it
    with _locked(CACHE / ".lock"):
        stale = [m for m in stale if not _cache_fresh(m)]  # another process may have recorded them meanwhile
        if not stale:
            return
        code = str(paths.PACKAGE_DIR.parent)
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [code, os.environ.get("PYTHONPATH")])))
        proc = subprocess.run([sys.executable, "-m", "autograder.recording", "--cache", *stale], cwd=code, env=env,
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise MissingExpected(f"recording the expected values of {', '.join(stale)} failed:\n{proc.stdout}{proc.stderr}")


def cached_store(module: str) -> Store:
    """``module``'s records in the staff checkout's cache, recorded first if its sources changed."""
    refresh_cache([module])
    return Store.load(cached_folder(module), module)


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


# The recorder (autograder.recording) replaces the stores while it records.
_OVERRIDE: dict[str, Store] = {}


@functools.cache
def _loaded(module: str) -> Store:
    shipped = shipped_folder()
    if (shipped / f"{module}.json").is_file():
        return Store.load(shipped, module)
    if not (paths.REFERENCE / f"{module}.py").is_file():
        raise MissingExpected(f"no expected values are recorded for {module} (assignments/{SHIPPED_NAME}/{module}.json is missing); "
                              "tell the course staff")
    return cached_store(module)


def store(module: str) -> Store:
    """The records of ``module``: shipped with the zip or handout, else the staff checkout's cache (re-recorded if stale)."""
    return _OVERRIDE.get(module) or _loaded(module)


def preload(modules: list[str]) -> None:
    """Open the records of ``modules`` now, before any student code runs (stale caches are re-recorded in one process)."""
    if not all((shipped_folder() / f"{m}.json").is_file() for m in modules) and all((paths.REFERENCE / f"{m}.py").is_file() for m in modules):
        refresh_cache(modules)
    for module in modules:
        store(module)


def reference_output(module: str, func: str, args: tuple, kwargs: dict) -> Any:
    """The reference's recorded output for this exact call."""
    entry = store(module).find(func, args, kwargs)
    if entry is None or entry.output is None:
        raise MissingExpected(f"no expected value is recorded for {module}.{func} with these arguments: the recorded values "
                              "and the tests are out of sync (a fault of the grader, not of the submission)")
    return decode(entry.output)


def mistake_outputs(module: str, func: str, args: tuple, kwargs: dict) -> list[tuple[str, Any]]:
    """(mistake, its output) for each known mistake recorded on this call whose output differs from the reference's."""
    entry = store(module).find(func, args, kwargs)
    return [] if entry is None else [(name, decode(value)) for name, value in entry.mistakes.items()]


def _same(a: object, blobs_a: list, b: object, blobs_b: list) -> bool:
    """Equal encoded trees; arrays and floats compared closely (inputs rebuilt on another machine)."""
    if isinstance(a, dict) and isinstance(b, dict):
        if a.get("t") == "array" == b.get("t"):
            x, y = blobs_a[a["blob"]], blobs_b[b["blob"]]
            if x.shape != y.shape or x.dtype != y.dtype or a.get("kind") != b.get("kind"):
                return False
            if x.dtype.kind not in "fc":
                return bool(np.array_equal(x, y))
            scale = float(np.nanmax(np.abs(y))) if y.size and np.isfinite(y).any() else 1.0
            # The absolute floor follows the checks' (rtol times the largest magnitude): a student's state that passed
            # a check at 1e-9 and comes back as the next call's input is still found.
            return bool(np.allclose(x, y, rtol=1e-7, atol=1e-7 * scale, equal_nan=True))
        if a.get("t") == "float" == b.get("t") and isinstance(a["v"], float) and isinstance(b["v"], float):
            return math.isclose(a["v"], b["v"], rel_tol=1e-9, abs_tol=1e-300)
        return a.keys() == b.keys() and all(_same(a[k], blobs_a, b[k], blobs_b) for k in a if k != "blob")
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, blobs_a, y, blobs_b) for x, y in zip(a, b, strict=True))
    return a == b
