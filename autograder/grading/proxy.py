"""Stand-ins for the student's modules: calling one runs the function in the sandbox.

A test is run twice (see ``runner.run_tests``): first on a ``Tape`` that records what each student call
gave while every check is deferred, then, once the student's calls for every test are over, again to be
judged, with the calls answered from the tape. A call the first pass never reached runs live then, in a
fresh process. What the tapes of one problem keep is bounded (``TapeBudget``), whatever the submission returns.
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import hashlib
import json
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..sandbox import WorkerSession, encode_call, errors
from ..sandbox.errors import StudentCallError
from ..sandbox.worker import wire
from ..settings import TAPE_MB
from .named import with_callables
from .time_rules import CallGuard

LEAF_BYTES = 64  # what the grader counts for each number, string or marker of a reply besides its arrays' bytes


class TapeBudget:
    """The bytes the tapes of one problem may keep: a reply that would pass ``TAPE_MB`` is not kept, and its call fails
    (so a submission whose calls return hundreds of MB each cannot make the grader hold them all until judging: with the
    reply in flight and the copy a test works on, a grader holds at most about 3 x ``TAPE_MB`` beyond its own needs)."""

    def __init__(self, limit: int = TAPE_MB << 20) -> None:
        self.limit, self.used = limit, 0

    def admit(self, size: int, shown: str) -> None:
        """Count ``size`` bytes in, or raise ``StudentCallError`` when they do not fit."""
        if self.used + size > self.limit:
            raise StudentCallError(
                f"{shown} returned {_mb(size)} MB; with what this problem's earlier calls returned, that is more "
                f"than the {self.limit >> 20} MB the grader keeps to judge them, so it was not kept.",
                errors.RESOURCE,
            )
        self.used += size


def _mb(size: int) -> str:
    return f"{size / (1 << 20):.1f}"


def value_bytes(value: Any) -> int:
    """About what a decoded reply holds in the grader: its arrays' bytes plus ``LEAF_BYTES`` per other leaf and
    container."""
    total, todo = 0, [value]
    while todo:
        item = todo.pop()
        if isinstance(item, np.ndarray):
            total += item.nbytes
        elif isinstance(item, dict):
            total += LEAF_BYTES
            todo += [*item.keys(), *item.values()]
        elif isinstance(item, (list, tuple, set, frozenset)):
            total += LEAF_BYTES
            todo += list(item)
        else:
            total += LEAF_BYTES + (len(item) if isinstance(item, (str, bytes)) else 0)
    return total


class Tape:
    """What one test's student calls gave, in order, keyed by function and inputs."""

    def __init__(self, fresh: Callable[[], None] | None = None, budget: TapeBudget | None = None) -> None:
        self.entries: list[tuple[str, Any]] = []
        self.recording = True
        self.position = 0
        self.diverged = False
        self.fresh = fresh  # starts a fresh process for the module before the first live call of the judging pass
        self.budget = budget or TapeBudget()  # shared by the tapes of one problem

    def record(self, key: str, live: Callable[[], Any], shown: str = "the call") -> Any:
        try:
            value = live()
        except StudentCallError as exc:
            self.entries.append((key, exc.without_traceback()))  # its frames would keep what the call held alive
            raise
        size = value_bytes(value)
        try:
            self.budget.admit(size, shown)
        except StudentCallError as exc:
            del value  # not kept: neither here nor by the frames of the error the test receives
            self.entries.append((key, exc.without_traceback()))
            raise
        self.entries.append((key, value))
        return copy.deepcopy(value)  # the test may change what it gets; the judging pass gets the value as it came

    def replay(self, key: str, live: Callable[[], Any]) -> Any:
        if not self.diverged and self.position < len(self.entries) and self.entries[self.position][0] == key:
            _, outcome = self.entries[self.position]
            self.position += 1
            if isinstance(outcome, StudentCallError):
                raise outcome.without_traceback()
            return outcome
        if not self.diverged and self.fresh is not None:
            self.fresh()
        self.diverged = True
        return live()


_TAPE: contextvars.ContextVar[Tape | None] = contextvars.ContextVar("student_call_tape", default=None)


@contextlib.contextmanager
def on_tape(tape: Tape) -> Iterator[Tape]:
    """Student calls inside the block are recorded on (or, once ``tape.recording`` is off, answered from) ``tape``."""
    token = _TAPE.set(tape)
    try:
        yield tape
    finally:
        _TAPE.reset(token)


def call_key(worker_name: str, func: str, args: tuple, kwargs: dict) -> str:
    """A fingerprint of a call: the function and its inputs as they cross the wire."""
    digest = hashlib.sha256(f"{worker_name}.{func}".encode())
    try:
        tree, blobs = encode_call(args, kwargs)
    except wire.WireError:
        return f"unencodable:{digest.hexdigest()}"
    digest.update(json.dumps(tree, sort_keys=True, default=str).encode())
    for blob in blobs:
        digest.update(wire.dtype_name(blob.dtype).encode() + str(blob.shape).encode())
        digest.update(np.ascontiguousarray(blob).data)  # the bytes of tobytes(), without a copy
    return digest.hexdigest()


class StudentFunction:
    """``module.func`` of the submission; calling it returns plain data or raises StudentCallError."""

    def __init__(
        self, session: WorkerSession, module: str, func: str, seconds: float, worker_name: str, guard: CallGuard
    ) -> None:
        self.session, self.module, self.func, self.seconds = session, module, func, seconds
        self.worker_name, self.guard = worker_name, guard

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._run(args, kwargs, None)

    def metered(self, args: tuple, kwargs: dict, meter: dict, fresh: bool = False) -> tuple[Any, dict]:
        """(value, cost) of one call run under ``meter`` (``sandbox/worker/metering.py``: ``work``, ``memory_mb``);
        ``fresh``: in a fresh process of the module, as a new test's first call is (nothing the test's earlier calls
        left, in the process or in the scratch folder, reaches it)."""
        return self._run(args, kwargs, dict(meter), fresh)

    def _run(self, args: tuple, kwargs: dict, meter: dict | None, fresh: bool = False) -> Any:
        from ..testkit.calls import describe_call

        def describe() -> str:
            return describe_call(self.module, self.func, args, kwargs)

        sent_args, sent_kwargs = with_callables(self.module, args, kwargs)

        def live(shown: str) -> Any:
            if fresh:
                self.session.fresh(self.worker_name)
            return self.guard.call(self.session, self.worker_name, self.module, self.func, sent_args, sent_kwargs,
                                   self.seconds, shown, meter=meter)

        tape = _TAPE.get()
        if tape is None:  # outside a test run (a staff tool calling the student directly): nothing to record
            return live(describe())
        key = call_key(self.worker_name, self.func, sent_args, sent_kwargs)
        if meter is not None:
            key += ":metered:" + json.dumps(meter, sort_keys=True) + (":fresh" if fresh else "")
        if tape.recording:
            shown = describe()
            return tape.record(key, lambda: live(shown), shown)
        # The judging pass answers from the tape: the call is described only if it must run after all.
        return tape.replay(key, lambda: live(describe()))

    def __repr__(self) -> str:
        return f"<student function {self.module}.{self.func}>"


class StudentModule:
    """Attribute access gives ``StudentFunction``s; nothing of the student's is imported here."""

    def __init__(self, session: WorkerSession, module: str, seconds: float, worker_name: str | None = None,
                 guard: CallGuard | None = None) -> None:
        self._session, self._module, self._seconds = session, module, seconds
        # Staff validation stages many variants of one problem side by side under other names.
        self._worker_name = worker_name or module
        self._guard = guard or CallGuard()

    def __getattr__(self, func: str) -> StudentFunction:
        if func.startswith("__"):
            raise AttributeError(func)
        return StudentFunction(self._session, self._module, func, self._seconds, self._worker_name, self._guard)

    def __repr__(self) -> str:
        return f"<student module {self._module} (runs in the sandbox)>"
