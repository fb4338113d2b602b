"""One problem's recorded calls: the reference's output and the known mistakes' outputs on each call's inputs.

A ``Store`` is looked up by the exact inputs of a call (a digest of the function name and the call's
encoded arguments; a close comparison finds inputs rebuilt on another machine) and saved as a JSON index
beside an .npz of its arrays, read on demand. Nothing here needs torch or the reference.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import math
import os
import struct
import threading
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..sandbox import GRADER_MAKE, to_array
from ..sandbox.errors import SandboxFault
from ..sandbox.worker import wire
from ..settings import KEEP_INPUT_ELEMENTS


class MissingExpected(SandboxFault):
    """No usable expected value for a call the tests make: the records and the tests are out of sync, or the records'
    files are damaged (a grader fault: the test cannot be judged, the others can)."""


# Whatever a damaged .json or .npz of a store raises as it is read.
DAMAGE = (OSError, EOFError, ValueError, KeyError, TypeError, IndexError, zipfile.BadZipFile)


# How a missing or damaged store is mended, wherever it was shipped.
GET_AGAIN = "on your machine: download the handout again; on Gradescope: the course staff build the zip again"


def damaged(path: Path, exc: BaseException) -> MissingExpected:
    """The fault of a store's file that cannot be read as ``save`` wrote it."""
    return MissingExpected(
        f"the recorded expected values in {path.name} are damaged ({type(exc).__name__}: {exc}); get them again "
        f"({GET_AGAIN})"
    )


def encode_inputs(args: tuple, kwargs: dict) -> tuple[Any, list[np.ndarray]]:
    """A call's inputs as one encoded tree and its arrays."""
    return wire.encode([list(args), dict(kwargs)], to_array)


def exact_key(func: str, tree: Any, arrays: list[np.ndarray]) -> str:
    """A digest of a call's function and inputs, bit for bit."""
    digest = hashlib.sha256(func.encode() + json.dumps(tree, sort_keys=True).encode())
    for array in arrays:
        digest.update(np.ascontiguousarray(array).data)  # the bytes of tobytes(), without a copy
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
    _built: dict[str, inspect.Signature | None] = field(default_factory=dict, repr=False, compare=False)

    def signature(self, func: str) -> inspect.Signature | None:
        """The reference's signature of ``func``, built once (every call's description binds its arguments)."""
        if func not in self._built:
            params = self.signatures.get(func)
            self._built[func] = (
                None
                if params is None
                else inspect.Signature(
                    [
                        inspect.Parameter(
                            name,
                            getattr(inspect.Parameter, kind),
                            default=None if has_default else inspect.Parameter.empty,
                        )
                        for name, kind, has_default in params
                    ]
                )
            )
        return self._built[func]

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
            item = {
                "key": key,
                "func": e.func,
                "public": e.public,
                "inputs": put(e.inputs if small else (e.inputs[0], [])),
            }
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
        np.savez(
            tmp_npz, *blobs
        )  # stored, not deflated: recorded floats compress by 3%, and inflating costs every grade
        tmp_npz.replace(npz_path)
        tmp_json.replace(json_path)
        return json_path, npz_path

    @classmethod
    def load(cls, folder: Path, module: str) -> Store:
        """Read what ``save`` wrote: the index now, each array when a lookup needs it (the grader's memory is the
        student's room)."""
        index = folder / f"{module}.json"
        try:
            data = json.loads(index.read_text(encoding="utf-8"))
        except DAMAGE as exc:
            raise damaged(index, exc) from exc
        npz = _StoredArrays(folder / f"{module}.npz")
        lock = threading.Lock()

        def get(item: list) -> tuple[Any, _Blobs]:
            tree, first, count = item
            return tree, _Blobs(npz, lock, first, count)

        try:
            store = cls(module, hints=dict(data["hints"]), signatures=dict(data["signatures"]))
            for item in data["calls"]:
                store.entries[item["key"]] = Entry(item["func"], get(item["inputs"]), item["public"],
                                                   get(item["output"]) if "output" in item else None,
                                                   {name: get(v) for name, v in item.get("mistakes", {}).items()},
                                                   exact_only=item.get("exact_only", False))
        except DAMAGE as exc:
            raise damaged(index, exc) from exc
        return store


class _StoredArrays:
    """A store's .npz file, read one array at a time: numpy reads the zip entry and parses the array's header (a
    Python literal) at each access; here each array's place, dtype and shape are found once, and each access reads its
    bytes from there. An entry numpy did not store as it is (compressed) is left to numpy."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.npz = np.load(path, allow_pickle=False)
        except DAMAGE as exc:
            raise damaged(path, exc) from exc
        self.places: dict[str, tuple[int, np.dtype, tuple[int, ...], bool] | None] = {}

    def __getitem__(self, name: str) -> np.ndarray:
        try:
            return self._read(name)
        except DAMAGE as exc:
            raise damaged(self.path, exc) from exc

    def _read(self, name: str) -> np.ndarray:
        if name not in self.places:
            self.places[name] = self._place(name)
        place = self.places[name]
        if place is None:
            return self.npz[name]
        offset, dtype, shape, fortran = place
        data = bytearray(math.prod(shape) * dtype.itemsize)  # writable, as numpy's own reading gives it
        if data and os.preadv(self.npz.zip.fp.fileno(), [data], offset) != len(data):
            raise ValueError(f"{name} is cut short")
        return np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C")

    def _place(self, name: str) -> tuple[int, np.dtype, tuple[int, ...], bool] | None:
        """(where the array's bytes start in the file, dtype, shape, Fortran order), or None: numpy reads it."""
        from numpy.lib import format as npy

        info = self.npz.zip.getinfo(f"{name}.npy")
        if info.compress_type != zipfile.ZIP_STORED or not hasattr(os, "preadv"):  # Windows has no preadv
            return None
        with self.npz.zip.open(info) as member:
            version = npy.read_magic(member)
            if version not in ((1, 0), (2, 0)):
                return None
            read_header = npy.read_array_header_1_0 if version == (1, 0) else npy.read_array_header_2_0
            shape, fortran, dtype = read_header(member)
            header_bytes = member.tell()
        if dtype.hasobject:
            return None  # refused by numpy's reading (no pickles)
        local = self.npz.zip.fp
        local.seek(info.header_offset)
        fixed = local.read(zipfile.sizeFileHeader)
        name_len, extra_len = struct.unpack("<HH", fixed[26:30])
        return info.header_offset + zipfile.sizeFileHeader + name_len + extra_len + header_bytes, dtype, shape, fortran


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
