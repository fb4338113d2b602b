"""Seeded test inputs as numpy arrays that reach the student as ``torch.Tensor``s.

The grader never imports torch: a test builds its inputs with numpy, and an array of type
``TensorArray`` (every array made here, and whatever arithmetic or slicing makes of it) crosses
the wire as a tensor, which the worker rebuilds with ``torch.from_numpy``. Draws come from
numpy's PCG64, so the same seed gives the same numbers on every machine and in every run.
"""

from __future__ import annotations

import contextvars
import math
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np

# Adds the MACs of matrix products while ``macs.measured_macs`` runs (None otherwise).
MAC_COUNTER: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar("mac_counter", default=None)
# Array functions the MAC counter prices like ``@``; any other product raises while counting.
_PRICED_FUNCTIONS = frozenset({"dot", "matmul"})
_UNPRICED_FUNCTIONS = frozenset({"einsum", "inner", "outer", "vdot", "kron", "tensordot", "multi_dot", "convolve"})


class UnpricedOperation(RuntimeError):
    """A matrix product the MAC counter has no rule for."""


class TensorArray(np.ndarray):
    """A numpy array that the student receives as a ``torch.Tensor`` (the wire reads ``__wire_tensor__``)."""

    __wire_tensor__ = True

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        plain = [x.view(np.ndarray) if isinstance(x, TensorArray) else x for x in inputs]
        if "out" in kwargs:
            kwargs["out"] = tuple(x.view(np.ndarray) if isinstance(x, TensorArray) else x for x in kwargs["out"])
        result = getattr(ufunc, method)(*plain, **kwargs)
        counter = MAC_COUNTER.get()
        if counter is not None and ufunc is np.matmul and method == "__call__":
            counter[0] += _matmul_macs(plain[0], result)
        return _wrap(result)

    def __array_function__(self, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
        counter = MAC_COUNTER.get()
        name = getattr(func, "__name__", "")
        if counter is not None and name in _UNPRICED_FUNCTIONS:
            raise UnpricedOperation(f"the MAC counter has no rule for {name}; write the product with @")
        plain_args = _unwrap(args)
        result = func(*plain_args, **_unwrap(kwargs))
        if counter is not None and name in _PRICED_FUNCTIONS:
            counter[0] += _matmul_macs(np.asarray(plain_args[0]), np.asarray(result))
        return _wrap(result)


def _matmul_macs(left: np.ndarray, result: np.ndarray) -> int:
    """Every element of a product's output costs one MAC per term of the shared dimension."""
    return math.prod(np.shape(result)) * np.shape(left)[-1]


def _unwrap(value: Any) -> Any:
    if isinstance(value, TensorArray):
        return value.view(np.ndarray)
    if isinstance(value, (list, tuple)):
        return type(value)(_unwrap(v) for v in value)
    if isinstance(value, dict):
        return {k: _unwrap(v) for k, v in value.items()}
    return value


def _wrap(value: Any) -> Any:
    if type(value) is np.ndarray:
        return value.view(TensorArray)
    if isinstance(value, tuple):
        return tuple(_wrap(v) for v in value)
    return value


def tensor(data: Any, dtype: Any = None) -> TensorArray:
    """``data`` (nested lists, an array) as an array the student receives as a tensor (float64 for Python floats)."""
    array = np.array(data, dtype=dtype)
    if dtype is None and array.dtype == np.float32 and not isinstance(data, np.ndarray):
        array = array.astype(np.float64)
    return array.view(TensorArray)


# Every test function runs twice (the runner's two passes) and a grader process grades many submissions, so the same
# seeded draw is asked for again and again: each is drawn once and kept (the least recently used go past this size),
# and every caller gets a copy of its own, which it may change.
DRAWS_KEPT_BYTES = 64 << 20
_draws: OrderedDict[tuple, np.ndarray] = OrderedDict()
_draws_bytes = 0
_draws_lock = threading.Lock()


def _drawn(key: tuple, draw: Callable[[], np.ndarray]) -> TensorArray:
    """A copy of ``draw()``, drawn once per ``key`` while it stays among the draws kept."""
    global _draws_bytes
    with _draws_lock:
        kept = _draws.get(key)
        if kept is not None:
            _draws.move_to_end(key)
    if kept is None:
        kept = draw()
        kept.flags.writeable = False
        with _draws_lock:
            if key not in _draws:
                _draws[key] = kept
                _draws_bytes += kept.nbytes
            while _draws_bytes > DRAWS_KEPT_BYTES and _draws:
                _draws_bytes -= _draws.popitem(last=False)[1].nbytes
    return kept.copy().view(TensorArray)


def randn(*shape: int, seed: int, scale: float = 1.0, dtype: Any = np.float64) -> TensorArray:
    """``scale`` times standard normal entries drawn from numpy's generator seeded with ``seed``."""

    def draw() -> np.ndarray:
        values = np.random.default_rng(seed).standard_normal(shape)
        if scale != 1.0:  # in place: the same numbers without another copy of a large draw
            values *= scale
        return values.astype(dtype, copy=False)

    return _drawn(("randn", shape, seed, scale, np.dtype(dtype).str), draw)


def rand(*shape: int, seed: int, dtype: Any = np.float64) -> TensorArray:
    """Uniform entries in [0, 1) drawn from numpy's generator seeded with ``seed``."""
    return _drawn(("rand", shape, seed, np.dtype(dtype).str),
                  lambda: np.random.default_rng(seed).random(shape).astype(dtype))


def randint(low: int, high: int, shape: tuple[int, ...], seed: int) -> TensorArray:
    """Integers in [low, high) (int64) drawn from numpy's generator seeded with ``seed``."""
    return _drawn(("randint", low, high, tuple(shape), seed),
                  lambda: np.random.default_rng(seed).integers(low, high, size=shape, dtype=np.int64))
