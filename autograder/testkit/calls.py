"""One call of a student function, compared with the reference's output on the same inputs.

``Call(student.fn, *args, **kwargs)`` runs the student's function in the sandbox once; the
reference's output was recorded when the zip was built (``expected``), never computed here. On
a mismatch the message names the call, what was expected, what came back and where they differ,
plus the hint of any known mistake whose recorded output matches the student's. Nothing here
imports torch: while ``recording`` runs the tests, ``RECORDER`` computes instead of looking up.
"""

from __future__ import annotations

import contextlib
import contextvars
import inspect
from collections.abc import Iterator
from typing import Any, Protocol

from ..expected import records
from ..sandbox.errors import StudentCallError
from . import checks

_UNSET = object()
# The recorder (``recording.Recorder``) while the tests run on the reference to record expected values.
RECORDER: contextvars.ContextVar[Any] = contextvars.ContextVar("expected_value_recorder", default=None)
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


def mistakes_shown(message: str, offered: list[tuple[str, str]]) -> dict[str, str]:
    """The offered mistakes whose hint the failure message shows, with the hint (a test may rewrap a failure or drop
    it)."""
    return {name: hint for name, hint in offered if f"Hint: {hint}" in message}


def _short(value: Any) -> str:
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        dtype = str(value.dtype).replace("torch.", "")
        return f"{dtype}{list(value.shape)}"
    if isinstance(value, (list, tuple)) and (len(value) > 6 or any(hasattr(v, "shape") for v in value)):
        return (f"<{type(value).__name__} of {len(value)}: "
                f"{', '.join(_short(v) for v in value[:3])}{', ...' if len(value) > 3 else ''}>")
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _signature(module: str, func: str) -> inspect.Signature | None:
    recorder = RECORDER.get()
    if recorder is not None and recorder.module == module:
        return inspect.signature(getattr(recorder.reference, func))
    try:
        return records.signature(module, func)
    except (records.MissingExpected, OSError, ValueError):
        return None


def describe_call(module: str, func: str, args: tuple, kwargs: dict) -> str:
    """``module.func(Q=float64[3, 2], scale=0.1)``, naming arguments from the reference's signature."""
    try:
        signature = _signature(module, func)
        if signature is None:
            raise TypeError
        parts = [f"{k}={_short(v)}" for k, v in signature.bind_partial(*args, **kwargs).arguments.items()]
    except (TypeError, AttributeError):
        parts = [_short(a) for a in args] + [f"{k}={_short(v)}" for k, v in kwargs.items()]
    return f"{module}.{func}({', '.join(parts)})"


def reference_value(module: str, func: str, args: tuple, kwargs: dict) -> Any:
    """The reference's ``module.func(*args, **kwargs)``, as recorded when the zip (or the cache) was built."""
    recorder = RECORDER.get()
    if recorder is not None:
        if recorder.module != module:
            raise ValueError(
                f"the tests of {recorder.module} may only ask for expected values of {recorder.module}, not {module}"
            )
        return recorder.expected(func, args, kwargs)
    return records.reference_output(module, func, args, kwargs)


def known_mistake(module: str, name: str) -> str:
    """The hint line of a known mistake that a test recognised by itself (a statistical law, say), offered like any
    hint."""
    recorder = RECORDER.get()
    hint = (
        recorder.store.hints[name] if recorder is not None and recorder.module == module else records.hint(module, name)
    )
    offered = _OFFERED.get()
    if offered is not None:
        offered.append((name, hint))
    return f"Hint: {hint}"


class StudentFunction(Protocol):
    """A student's ``module.func`` as a test holds it: calling it runs the function out of process
    (``grading.proxy``)."""

    module: str
    func: str

    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...

    def metered(self, args: tuple, kwargs: dict, meter: dict, fresh: bool = False) -> tuple[Any, dict]: ...


class _Raised:
    def __init__(self, error: StudentCallError) -> None:
        self.error = error


class Call:
    """A student call plus everything needed to judge it."""

    def __init__(self, fn: StudentFunction, *args: Any, **kwargs: Any) -> None:
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.module, self.func = fn.module, fn.func
        self._got: Any = _UNSET
        self._cost: dict | None = None

    @property
    def shown(self) -> str:
        """How the call reads in a message."""
        return describe_call(self.module, self.func, self.args, self.kwargs)

    def result(self) -> Any:
        """The student's value (computed once)."""
        if self._got is _UNSET:
            self._got = self.fn(*self.args, **self.kwargs)
        if isinstance(self._got, _Raised):
            raise self._got.error
        return self._got

    def cost(self, work: bool = False, memory_mb: int | None = None, fresh: bool = False) -> dict:
        """Run the call (once) counting what it costs where it runs, and return the counts; ``result()`` then gives its
        value.

        ``work``: count torch's operations (``work``: elements written and reduced plus multiply-accumulates;
        ``largest_tensor``; ``random_elements`` drawn and how many of them are ``random_distinct``), at a price in
        speed; ``memory_mb``: the call may add at most this much address space (a larger allocation raises
        ``MemoryError`` there); ``fresh``: run it in a fresh process of the module, which nothing the test's earlier
        calls left reaches. Always ``cpu_seconds``, the CPU time of the process that ran it. See
        ``sandbox/worker/metering.py``. A metered call gets no hints: no known mistake's output is recorded on its
        inputs (``staff/recording.py``).
        """
        if self._cost is None:
            if self._got is not _UNSET:
                raise ValueError(f"{self.shown} already ran unmetered: ask for its cost before its result")
            meter = {"work": bool(work)} | ({"memory_mb": int(memory_mb)} if memory_mb else {})
            try:
                self._got, self._cost = self.fn.metered(self.args, self.kwargs, meter, fresh=fresh)
            except StudentCallError as exc:
                self._got = _Raised(exc)  # result() raises it again rather than running the call a second time
                raise
        return self._cost

    def reference(self) -> Any:
        """The reference's value on the same inputs."""
        return reference_value(self.module, self.func, self.args, self.kwargs)

    def tolerance(self, rtol: float | None) -> checks.Tolerance:
        return checks.Tolerance(rtol) if rtol is not None else checks.tolerance_for(self.args, self.kwargs)

    def matches(self, expected: Any, rtol: float | None = None, hints: bool = True) -> Any:
        """Fail unless the student's value matches ``expected``; return the student's value."""
        got = self.result()
        if checks.DEFERRED.get():  # judged later, once the student's calls are over
            return got
        tol = self.tolerance(rtol)
        diff = checks.difference(got, expected, tol)
        if diff:
            found = self.hints(got, expected, tol) if hints else []
            found += [h for h in [checks.precision_hint(got, self.args, self.kwargs)] if h and h not in found]
            raise checks.CheckFailure.labelled(
                Called=self.shown,
                Expected=checks.describe(expected),
                Got=checks.describe(got, own=True),
                Where=diff,
                Hint="\n".join(found),
            )
        return got

    def matches_reference(self, rtol: float | None = None, hints: bool = True) -> Any:
        """Fail unless the student's value matches the reference's on the same inputs."""
        if checks.DEFERRED.get():  # judged later, once the student's calls are over
            return self.result()
        self.result()
        return self.matches(self.reference(), rtol=rtol, hints=hints)

    def hints(self, got: Any, expected_value: Any, tol: checks.Tolerance) -> list[str]:
        """Hints of the known mistakes whose output here equals the student's (and not the expected value)."""
        found = self.matching_mistakes(got, expected_value, tol)
        offered = _OFFERED.get()
        if offered is not None:
            offered += found
        return list(dict.fromkeys(hint for _, hint in found))

    def matching_mistakes(self, got: Any, expected_value: Any, tol: checks.Tolerance) -> list[tuple[str, str]]:
        """(name, hint) of the known mistakes whose recorded output here equals the student's (and not the expected
        value)."""
        if RECORDER.get() is not None:
            return []
        try:
            recorded = records.mistake_outputs(self.module, self.func, self.args, self.kwargs)
            hints = records.store(self.module).hints
        except records.MissingExpected:
            return []
        matching = [
            name
            for name, out in recorded
            if checks.difference(got, out, tol) is None and checks.difference(out, expected_value, tol) is not None
        ]
        return [(name, hints.get(name, "")) for name in narrowest(self.module, matching)]


def narrowest(module: str, matching: list[str]) -> list[str]:
    """The mistakes of ``matching`` that change no more functions than they must: one whose output here is also that of
    a mistake changing a strict subset of its functions is a compound of it (a cos-first encoding with a matching
    cos-first M gives, for M alone, the M of transposed blocks), and the narrower mistake names the cause at this
    call."""
    if len(matching) < 2:
        return matching
    changed = _changed_functions(module)
    return [m for m in matching if not any(changed.get(n, frozenset()) < changed.get(m, frozenset()) for n in matching)]


def _changed_functions(module: str) -> dict[str, frozenset[str]]:
    """Each known mistake of ``module`` -> the functions whose recorded output it changes on some call."""
    found: dict[str, set[str]] = {}
    for entry in list(records.store(module).entries.values()):
        for name in entry.mistakes:
            found.setdefault(name, set()).add(entry.func)
    return {name: frozenset(funcs) for name, funcs in found.items()}


def expect_raises(call: Call, exception: str) -> None:
    """Fail unless the student's function raised the built-in exception class named ``exception`` (or a subclass of it)
    on this call."""
    try:
        got = call.result()
    except StudentCallError as exc:
        if exc.raised_a(exception):
            return
        got_text = str(exc).splitlines()[0]
    else:
        got_text = f"it returned {checks.describe(got)} instead of raising"
    if not checks.DEFERRED.get():
        raise checks.CheckFailure.labelled(Called=call.shown, Expected=exception, Got=got_text)
