"""One call of a student function, compared with the reference on the same inputs.

``Call(student.fn, *args, **kwargs)`` runs the student's function in the sandbox once and
the reference's in the grader; on a mismatch the message names the call, what was
expected, what came back and where they differ, plus the hint of any known mistake whose
output matches the student's.
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import inspect
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from . import checks, solutions
from .proxy import StudentFunction
from .sandbox.wire import Named, Seeded

_UNSET = object()
# Hints rerun every known mistake in the grader, which has no sandbox limits: small inputs only.
HINT_MAX_ELEMENTS = 100_000
# (mistake name, hint) of every hint offered while a test runs; None outside ``collecting_mistakes``.
_OFFERED: contextvars.ContextVar[list[tuple[str, str]] | None] = contextvars.ContextVar("offered_hints", default=None)


@contextlib.contextmanager
def collecting_mistakes() -> Iterator[list[tuple[str, str]]]:
    """Collect (mistake name, hint) for every hint offered inside the block (the runner wraps each test in it)."""
    offered: list[tuple[str, str]] = []
    token = _OFFERED.set(offered)
    try:
        yield offered
    finally:
        _OFFERED.reset(token)


def mistakes_shown(message: str, offered: list[tuple[str, str]]) -> list[str]:
    """The offered mistakes whose hint the failure message shows (a test may rewrap a failure or drop it)."""
    return list(dict.fromkeys(name for name, hint in offered if f"Hint: {hint}" in message))


def _short(value: Any) -> str:
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        dtype = str(value.dtype).replace("torch.", "")
        return f"{dtype}{list(value.shape)}"
    if isinstance(value, (list, tuple)) and (len(value) > 6 or any(hasattr(v, "shape") for v in value)):
        return f"<{type(value).__name__} of {len(value)}: {', '.join(_short(v) for v in value[:3])}{', ...' if len(value) > 3 else ''}>"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def describe_call(module: str, func: str, args: tuple, kwargs: dict) -> str:
    """``module.func(Q=float64[3, 2], scale=0.1)``, naming arguments from the reference's signature."""
    try:
        bound = inspect.signature(getattr(solutions.reference(module), func)).bind_partial(*args, **kwargs)
        parts = [f"{k}={_short(v)}" for k, v in bound.arguments.items()]
    except (TypeError, AttributeError, FileNotFoundError):
        parts = [_short(a) for a in args] + [f"{k}={_short(v)}" for k, v in kwargs.items()]
    return f"{module}.{func}({', '.join(parts)})"


def materialize(value: Any) -> Any:
    """The grader-side object for an argument: a real generator or function, a fresh tensor copy."""
    import torch

    from .sandbox import callables

    if isinstance(value, Seeded):
        return torch.Generator().manual_seed(value.seed)
    if isinstance(value, Named):
        return callables.build(value.name)
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, (list, tuple)):
        return type(value)(materialize(v) for v in value)
    if isinstance(value, dict):
        return {k: materialize(v) for k, v in value.items()}
    return copy.deepcopy(value)


def _size(value: Any) -> int:
    if hasattr(value, "numel"):
        return int(value.numel())
    if isinstance(value, np.ndarray):
        return int(value.size)
    if isinstance(value, (list, tuple)):
        return sum(_size(v) for v in value)
    return 1


def _plain(value: Any) -> Any:
    """Reference outputs in the same form as values that crossed the sandbox."""
    if hasattr(value, "detach"):
        return value.detach().cpu().numpy()
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, np.generic):
        return value.item()
    return value


def run_trusted(impl: Callable, args: tuple, kwargs: dict) -> Any:
    """Run a trusted implementation on fresh copies of the inputs (one thread, as in the worker)."""
    import torch

    # One thread: the same reduction order on every machine, and no oversubscription in grade-all.
    torch.set_num_threads(1)
    return _plain(impl(*materialize(args), **materialize(kwargs)))


def reference_value(module: str, func: str, args: tuple, kwargs: dict) -> Any:
    """The reference's ``module.func(*args, **kwargs)`` (recorded in advance in the students' handout, which has no reference)."""
    if not solutions.has_reference(module):
        return solutions.recorded_output(module, func, args, kwargs)
    return run_trusted(getattr(solutions.reference(module), func), args, kwargs)


class Call:
    """A student call plus everything needed to judge it."""

    def __init__(self, fn: StudentFunction, *args: Any, **kwargs: Any) -> None:
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.module, self.func = fn.module, fn.func
        self._got: Any = _UNSET

    @property
    def shown(self) -> str:
        """How the call reads in a message."""
        return describe_call(self.module, self.func, self.args, self.kwargs)

    def result(self) -> Any:
        """The student's value (computed once)."""
        if self._got is _UNSET:
            self._got = self.fn(*self.args, **self.kwargs)
        return self._got

    def reference(self) -> Any:
        """The reference's value on the same inputs."""
        return reference_value(self.module, self.func, self.args, self.kwargs)

    def tolerance(self, rtol: float | None) -> checks.Tolerance:
        return checks.Tolerance(rtol) if rtol is not None else checks.tolerance_for(self.args, self.kwargs)

    def matches(self, expected: Any, rtol: float | None = None, hints: bool = True) -> Any:
        """Fail unless the student's value matches ``expected``; return the student's value."""
        got = self.result()
        if checks.DEFERRED.get():  # issue 18: judged later, once the student's calls are over
            return got
        tol = self.tolerance(rtol)
        diff = checks.difference(got, expected, tol)
        if diff:
            lines = [f"Called: {self.shown}", f"Expected: {checks.describe(expected)}", f"Got: {checks.describe(got)}", f"Where: {diff}"]
            lines += [f"Hint: {h}" for h in (self.hints(got, expected, tol) if hints else [])]
            raise checks.CheckFailure("\n".join(lines))
        return got

    def matches_reference(self, rtol: float | None = None, hints: bool = True) -> Any:
        """Fail unless the student's value matches the reference's on the same inputs."""
        if checks.DEFERRED.get():  # issue 18: judged later, once the student's calls are over
            return self.result()
        self.result()
        return self.matches(self.reference(), rtol=rtol, hints=hints)

    def hints(self, got: Any, expected: Any, tol: checks.Tolerance) -> list[str]:
        """Hints of the known mistakes whose output here equals the student's (and not the reference's)."""
        found = self.matching_mistakes(got, expected, tol)
        offered = _OFFERED.get()
        if offered is not None:
            offered += [(v.name, v.hint) for v in found]
        return list(dict.fromkeys(v.hint for v in found))

    def matching_mistakes(self, got: Any, expected: Any, tol: checks.Tolerance) -> list[solutions.Variant]:
        """The known mistakes whose output here equals the student's (and not the reference's)."""
        if _size(self.args) + _size(self.kwargs) > HINT_MAX_ELEMENTS:
            return []
        found = []
        for variant in solutions.mistakes(self.module):
            try:
                impl = getattr(variant.load(), self.func)
                out = run_trusted(impl, self.args, self.kwargs)
                if checks.difference(got, out, tol) is None and checks.difference(out, expected, tol) is not None:
                    found.append(variant)
            except Exception:  # noqa: BLE001 - a mistake that cannot run here gives no hint
                continue
        return found
