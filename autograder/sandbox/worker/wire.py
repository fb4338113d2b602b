"""The byte format between grader and worker: a JSON header plus raw array buffers.

Nothing here can run code on decode: JSON is parsed with the standard library and arrays
are rebuilt with ``numpy.frombuffer`` from a whitelist of dtypes (never pickle). This
module needs only numpy and the standard library, because the worker imports it too.
"""

from __future__ import annotations

import json
import math
import os
import struct
from typing import Any

import numpy as np

ALLOWED_DTYPES = ("float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint8", "bool")
_ALLOWED_NAMES = {np.dtype(name).type: name for name in ALLOWED_DTYPES}
MAX_MESSAGE_BYTES = 512 * 1024 * 1024
MAX_HEADER_BYTES = 8 << 20  # the JSON part: a value tree of plain data, never the arrays themselves
MAX_BLOBS = 4096  # arrays in one message
MAX_DEPTH = 16
MAX_REPLY_BYTES = (
    256 << 20
)  # arrays in one reply (the worker refuses more before sending; a message may hold twice that)
MAX_TEXT = 4000  # characters of an error's type, message or traceback in a reply
WORKER_BROKEN = (
    70  # the worker's exit status when a module broke the worker's own code (replaced Python built-ins, say)
)
_LEN = struct.Struct("<Q")
PIPE_BYTES = 1 << 20  # Linux's largest pipe buffer for any user


def dtype_name(dtype: np.dtype) -> str:
    """``dtype.name``: numpy works that out in Python at each reading (1.6 us), and every array that crosses needs it
    more than once; a look-up by the scalar type answers for the wire's dtypes (the same name whatever the byte
    order: ``native`` puts each blob in this machine's order before it crosses)."""
    return _ALLOWED_NAMES.get(dtype.type) or dtype.name


def native(array: np.ndarray) -> np.ndarray:
    """``array`` C-contiguous and in this machine's byte order, copied only when it is not already.

    A blob crosses as raw bytes under a dtype name that carries no byte order (``dtype_name``), and the reader rebuilds
    it in its own order: a big-endian array sent as it is would arrive with every value's bytes reversed."""
    if not array.dtype.isnative:  # single-byte and bool dtypes count as native: nothing to swap
        array = array.astype(array.dtype.newbyteorder("="), order="C")
    return np.ascontiguousarray(array)


def widen_pipe(fd: int) -> None:
    """Give a pipe 1 MB of buffer instead of 64 KB: an array of tens of MB then crosses in a few dozen wake-ups of each
    side, not a thousand. Where it cannot (another system, a user past its pipe quota), the pipe stays as it is."""
    try:
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except (ImportError, AttributeError, OSError):
        pass


class WireError(Exception):
    """A message that does not follow the format (truncated, oversized, or malformed)."""


class Seeded:
    """A ``torch.Generator`` seeded with ``seed``, built on the receiving side."""

    def __init__(self, seed: int) -> None:
        self.seed = int(seed)

    def __repr__(self) -> str:
        return f"torch.Generator().manual_seed({self.seed})"


class GlobalSeed:
    """``None`` for the function that receives it, after ``torch.manual_seed(seed)`` on the receiving side: how a test
    passes ``generator=None`` with torch's global random state set where the call runs."""

    def __init__(self, seed: int) -> None:
        self.seed = int(seed)

    def __repr__(self) -> str:
        return f"None (after torch.manual_seed({self.seed}))"


class Named:
    """A value named in a test, built on the receiving side (``callables.build``): a torch dtype (``"torch.float32"``),
    or a function of the problem's ``callables.py``, whose source the grader attaches before the call crosses."""

    def __init__(self, name: str, source: str | None = None) -> None:
        self.name, self.source = name, source

    def __repr__(self) -> str:
        return self.name


class Unsupported:
    """A returned object of a type that cannot cross the boundary (generator, module, ...)."""

    def __init__(self, type_name: str) -> None:
        self.type_name = type_name

    def __repr__(self) -> str:
        return f"<{self.type_name} object>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unsupported) and other.type_name == self.type_name

    def __hash__(self) -> int:  # it may be a dict key or a set member of a returned value
        return hash((Unsupported, self.type_name))


class Tensor:
    """Marks an array that the receiving side should turn into a ``torch.Tensor``."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array


def encode(value: Any, to_array) -> tuple[Any, list[np.ndarray]]:
    """Turn ``value`` into a JSON-able tree and a list of arrays; ``to_array`` converts foreign arrays."""
    blobs: list[np.ndarray] = []

    def enc(v: Any, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise WireError("value nested too deeply")
        if v is None:
            return None
        if type(v) is str:
            return {"t": "str", "v": v}
        if type(v) is bool:
            return {"t": "bool", "v": v}
        if type(v) is int:
            return {"t": "int", "v": v}
        if type(v) is float:
            return {"t": "float", "v": _float_out(v)}
        if isinstance(v, Tensor):
            return enc_array(v.array, "tensor")
        if isinstance(v, Seeded):
            return {"t": "generator", "seed": v.seed}
        if isinstance(v, GlobalSeed):
            return {"t": "global_seed", "seed": v.seed}
        if isinstance(v, Named):
            return {"t": "named", "name": v.name} | ({"source": v.source} if v.source is not None else {})
        if isinstance(v, (list, tuple)):  # subclasses (namedtuple, ...) cross as the plain type
            return {"t": "list" if isinstance(v, list) else "tuple", "items": [enc(x, depth + 1) for x in v]}
        if isinstance(v, (set, frozenset)):
            return {"t": "set", "items": [enc(x, depth + 1) for x in v]}
        if isinstance(v, dict):
            return {"t": "dict", "items": [[enc(k, depth + 1), enc(x, depth + 1)] for k, x in v.items()]}
        if isinstance(v, np.ndarray) and getattr(v, "__wire_tensor__", False):  # the grader's inputs.TensorArray
            return enc_array(v.view(np.ndarray), "tensor")
        converted = to_array(v)
        if converted is not None:
            array, kind = converted
            return enc_array(array, kind)
        return {"t": "unsupported", "type": _type_name(v)}

    def enc_array(array: np.ndarray, kind: str) -> dict:
        name = dtype_name(array.dtype)
        if name not in ALLOWED_DTYPES:  # before ``native``: a structured or object array is refused, not converted
            return {"t": "unsupported", "type": f"{kind} of dtype {name}"}
        array = native(array)  # the blob's bytes are what the other side reads, in its own byte order
        blobs.append(array)
        return {
            "t": "array",
            "kind": kind,
            "dtype": name,
            "shape": list(array.shape),
            "blob": len(blobs) - 1,
        }

    try:
        return enc(value, 0), blobs
    finally:
        # the nested functions refer to each other: without this, their cycle keeps the arrays until a collection
        enc = enc_array = None  # noqa: F841


def decode(tree: Any, blobs: list[np.ndarray], make: dict) -> Any:
    """Rebuild a value; ``make`` maps 'tensor', 'generator', 'global_seed', 'named' to local constructors."""

    def dec(node: Any, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise WireError("value nested too deeply")
        if node is None:
            return None
        if not isinstance(node, dict) or "t" not in node:
            raise WireError(f"malformed value node {str(node)[:80]!r}")
        t = node["t"]
        if t in ("str", "bool", "int"):
            v = node["v"]
            if type(v) is not {"str": str, "bool": bool, "int": int}[t]:
                raise WireError(f"malformed {t}")
            return v
        if t == "float":
            return _float_in(node["v"])
        if t == "array":
            array = blobs[_index(node["blob"], len(blobs))]
            shape = tuple(int(s) for s in node["shape"])
            if node["dtype"] != dtype_name(array.dtype) or int(np.prod(shape, dtype=np.int64)) != array.size:
                raise WireError("array header does not match its data")
            array = array.reshape(shape)
            return make["tensor"](array) if node.get("kind") == "tensor" else array
        if t in ("list", "tuple", "set"):
            items = [dec(x, depth + 1) for x in node["items"]]
            return {"list": list, "tuple": tuple, "set": _safe_set}[t](items)
        if t == "dict":
            return {_hashable(dec(k, depth + 1)): dec(v, depth + 1) for k, v in node["items"]}
        if t == "generator":
            return make["generator"](int(node["seed"]))
        if t == "global_seed":
            return make["global_seed"](int(node["seed"]))
        if t == "named":
            return make["named"](str(node["name"]), *([str(node["source"])] if "source" in node else []))
        if t == "unsupported":
            return Unsupported(str(node["type"])[:200])
        raise WireError(f"unknown value type {t!r}")

    try:
        return dec(tree, 0)
    finally:
        # it refers to itself: without this, the cycle keeps the received arrays alive until a collection
        dec = None  # noqa: F841


def write_message(fd: int, header: dict, blobs: list[np.ndarray], write_all=None) -> None:
    """Write one framed message: header length, header JSON, then each blob's bytes; ``write_all(fd, data)`` may impose
    a deadline."""
    write_all = write_all or _write_all
    total = sum(b.nbytes for b in blobs)
    if total > MAX_MESSAGE_BYTES:
        raise WireError(f"message of {total} bytes exceeds {MAX_MESSAGE_BYTES}")
    write_all(fd, frame(header, [(int(b.nbytes), dtype_name(b.dtype)) for b in blobs]))
    for b in blobs:
        if b.nbytes:  # a zero-size array has no bytes (and memoryview cannot cast it)
            write_all(fd, memoryview(native(b).reshape(-1)).cast("B"))  # the table names no byte order: send native


def read_message(fd: int, read_exact=None, max_blob_bytes: int = MAX_MESSAGE_BYTES) -> tuple[dict, list[np.ndarray]]:
    """Read one framed message; ``read_exact(fd, n)`` may impose a deadline.

    Every length is checked against its bound before anything of that size is read or allocated: the header
    (``MAX_HEADER_BYTES``), the number of arrays (``MAX_BLOBS``) and their total size (``max_blob_bytes``).
    """
    header, table = read_header(fd, read_exact, max_blob_bytes)
    read_exact = read_exact or _read_exact
    blobs = []
    for size, dtype in table:
        data = read_exact(fd, size)
        array = np.frombuffer(data, dtype=np.dtype(dtype))
        blobs.append(array if isinstance(data, bytearray) else array.copy())  # a bytearray is ours and writable already
    return header, blobs


def read_header(
    fd: int, read_exact=None, max_blob_bytes: int = MAX_MESSAGE_BYTES
) -> tuple[dict, list[tuple[int, str]]]:
    """Read a message's header and check its blob table; return (header, [(size, dtype), ...]), the blobs still
    unread."""
    read_exact = read_exact or _read_exact
    (head_len,) = _LEN.unpack(read_exact(fd, _LEN.size))
    if head_len > MAX_HEADER_BYTES:
        raise WireError(f"oversized header ({head_len} bytes, at most {MAX_HEADER_BYTES})")
    try:
        header = json.loads(read_exact(fd, head_len))
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise WireError(f"header is not JSON: {e}") from None
    if not isinstance(header, dict):
        raise WireError("header is not an object")
    sizes, dtypes = header.pop("blob_sizes", []), header.pop("blob_dtypes", [])
    if (
        not isinstance(sizes, list)
        or not isinstance(dtypes, list)
        or len(sizes) != len(dtypes)
        or len(sizes) > MAX_BLOBS
    ):
        raise WireError("bad blob table")
    if any(type(s) is not int or s < 0 for s in sizes) or sum(sizes) > max_blob_bytes:
        raise WireError(f"bad blob table (sizes must be counts of bytes adding up to at most {max_blob_bytes})")
    for size, dtype in zip(sizes, dtypes):
        if dtype not in ALLOWED_DTYPES:
            raise WireError(f"dtype {dtype!r} not allowed")
        if size % np.dtype(dtype).itemsize:
            raise WireError("blob size is not a whole number of items")
    return header, list(zip(sizes, dtypes))


def frame(header: dict, blob_table: list[tuple[int, str]]) -> bytes:
    """The bytes that start a message whose blobs (of these sizes and dtypes) follow as they are."""
    header = dict(header, blob_sizes=[s for s, _ in blob_table], blob_dtypes=[d for _, d in blob_table])
    head = json.dumps(header, allow_nan=True).encode()
    if len(head) > MAX_HEADER_BYTES:
        raise WireError(f"header of {len(head)} bytes exceeds {MAX_HEADER_BYTES}")
    return _LEN.pack(len(head)) + head


def stream_reader(stream: Any) -> Any:
    """A ``read_exact`` for ``read_message`` that reads from a binary file object (the portable path's pipes) instead of
    an fd."""

    def read_exact(_fd: Any, n: int) -> bytearray:
        buffer, got = bytearray(n), 0
        view = memoryview(buffer)
        while got < n:
            k = stream.readinto(view[got:])
            if not k:
                raise EOFError("channel closed")
            got += k
        return buffer

    return read_exact


def read_into(fd: int, buffer: bytearray, got: int) -> int:
    """Read what is available of ``buffer[got:]`` from ``fd`` (at most 1 MiB) in place; return the new count.

    Filling one buffer keeps a large array to one copy in memory while it arrives (not chunks, their join and a copy).
    """
    n = os.readv(fd, [memoryview(buffer)[got:got + (1 << 20)]])
    if not n:
        raise EOFError("channel closed")
    return got + n


def _read_exact(fd: int, n: int) -> bytearray:
    buffer, got = bytearray(n), 0
    while got < n:
        got = read_into(fd, buffer, got)
    return buffer


def _write_all(fd: int, data) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _float_out(v: float) -> Any:
    return v if math.isfinite(v) else {"nan": "nan", "inf": "inf", "-inf": "-inf"}[repr(v)]


def _float_in(v: Any) -> float:
    if isinstance(v, str) and v in ("nan", "inf", "-inf"):
        return float(v)
    if type(v) not in (int, float):
        raise WireError("malformed float")
    return float(v)


def _index(i: Any, n: int) -> int:
    if type(i) is not int or not 0 <= i < n:
        raise WireError("bad blob index")
    return i


def _hashable(v: Any) -> Any:
    try:
        hash(v)
    except TypeError:
        raise WireError("unhashable dict key") from None
    return v


def _safe_set(items: list) -> set:
    return {_hashable(x) for x in items}


def _type_name(v: Any) -> str:
    t = type(v)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"
