"""How the grader puts a call's inputs on the wire and reads what comes back: plain numpy data, never torch objects."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from . import boundary
from .worker import wire


def to_array(v: Any) -> tuple[np.ndarray, str] | None:
    """How the grader encodes arrays (``TensorArray``s are marked tensors by the wire itself)."""
    torch = sys.modules.get("torch")  # the grader never imports torch; staff code that has it may still pass tensors
    if torch is not None and isinstance(v, torch.Tensor):
        return v.detach().cpu().numpy(), "tensor"
    if isinstance(v, np.ndarray):
        return v, "ndarray"
    if isinstance(v, np.generic):
        return np.asarray(v), "scalar"
    return None

GRADER_MAKE = {
    "tensor": lambda a: a,
    "generator": lambda seed: wire.Seeded(seed),
    "global_seed": lambda seed: wire.GlobalSeed(seed),
    "named": lambda name, source=None: wire.Named(name),  # a marker only: the grader builds nothing a reply names
}


def encode_call(args: tuple, kwargs: dict) -> tuple[Any, list[np.ndarray]]:
    """A call's arguments as the worker receives them: one encoded tree and its arrays."""
    return wire.encode((tuple(args), dict(kwargs)), to_array)


def decode_value(tree: Any, blobs: list[np.ndarray]) -> Any:
    """A value that crossed the sandbox, as plain data (numpy arrays, ints, sets, markers); ``wire.WireError`` for one
    that cannot be read (a seed of inf, a shape past int64: the student's reply, never the grader's fault)."""
    try:
        return wire.decode(tree, blobs, GRADER_MAKE)
    except wire.WireError:
        raise
    except Exception as exc:  # noqa: BLE001 - whatever the reply's content makes decoding raise is its own
        raise wire.WireError(f"a value that cannot be read ({type(exc).__name__})") from None


def read_reply(fd: int | None, read_exact, max_blob_bytes: int) -> tuple[dict, list[np.ndarray]]:
    """One message of the process running student code, as the grader's data: its header bounded (``wire``) and every
    string in it made valid text (``boundary``); ``wire.WireError`` when it cannot be."""
    header, blobs = wire.read_message(fd, read_exact, max_blob_bytes)
    try:
        return boundary.tree(header), blobs
    except ValueError as exc:
        raise wire.WireError(str(exc)) from None
