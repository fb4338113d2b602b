"""Answering one module's requests: import it, call its functions, send back what they return as plain data.

The one implementation of a module's side of the wire, used by the sandbox worker's module processes
(``main.py``), the portable worker (``portable_main.py``) and the recording of expected values
(``autograder.staff.recording``, which encodes the reference's outputs as a worker would send them). It runs
where torch is imported; it is copied into the sandbox box with the worker.
"""

from __future__ import annotations

import builtins
import importlib.util
import inspect
import os
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

if __package__:  # autograder.sandbox.worker.serving, in the grader's recording
    from . import imports, metering, wire
else:  # serving, beside worker.py in the box
    import imports
    import metering
    import wire

MAX_TEXT, MAX_REPLY_BYTES = wire.MAX_TEXT, wire.MAX_REPLY_BYTES
# The built-in exception classes, taken when this module loads, before any student code runs, nearest first when
# sorted by the length of their MRO: what an exception is an instance of is asked of these, so a class of the student's
# own that only shares a built-in's name (or claims to come from builtins) is not taken for it.
_BUILTIN_EXCEPTIONS = sorted(
    ((name, cls) for name, cls in vars(builtins).items() if isinstance(cls, type) and issubclass(cls, BaseException)),
    key=lambda item: -len(item[1].__mro__),
)


def describe_exception(exc: BaseException, submission: str) -> dict:
    """The error as the student should see it: type, message, and only their own frames."""
    tb = traceback.TracebackException.from_exception(exc, limit=50)
    own = [f for f in tb.stack if f.filename.startswith(submission)]
    for frame in own:  # the student knows the file by its name, not by where the grader staged it
        frame.filename = os.path.basename(frame.filename)
    if getattr(tb, "filename", None) and tb.filename.startswith(submission):  # a SyntaxError's own location
        tb.filename = os.path.basename(tb.filename)
    tb.stack = traceback.StackSummary.from_list(own)
    text = "".join(tb.format())
    if len(text) > MAX_TEXT:
        text = text[: MAX_TEXT // 2] + "\n...\n" + text[-MAX_TEXT // 2 :]
    try:
        message = str(exc)
    except BaseException:
        message = "<unprintable exception>"
    return {"type": type(exc).__name__, "message": message[:MAX_TEXT], "traceback": text,
            "builtins": builtin_classes(exc)}


def builtin_classes(exc: BaseException) -> list[str]:
    """The names of the built-in exception classes ``exc`` is an instance of, nearest first (``except ValueError``
    catches it exactly when "ValueError" is among them)."""
    return [name for name, cls in _BUILTIN_EXCEPTIONS if issubclass(type(exc), cls)]


def folder_name(folder: Any) -> str:
    """A submission's folder under the bound root: one plain name, or the root itself."""
    if folder is None:
        return ""
    if not isinstance(folder, str) or not folder or folder.startswith(".") or "/" in folder or "\0" in folder:
        raise ValueError(f"bad submission folder {folder!r}")
    return folder


def check_size(nbytes: int) -> None:
    """Refuse a reply holding more array bytes than ``MAX_REPLY_BYTES``."""
    if nbytes > MAX_REPLY_BYTES:
        raise ValueError(f"it holds {nbytes} bytes of arrays, more than the {MAX_REPLY_BYTES} allowed")


def text_of(exc: BaseException) -> str:
    """``str(exc)``, cut to ``MAX_TEXT``, for an exception whose ``__str__`` may itself raise."""
    try:
        return str(exc)[:MAX_TEXT]
    except BaseException:  # noqa: BLE001
        return "<unprintable>"


def map_leaves(value: Any, fn: Callable[[Any], Any], depth: int = 0) -> Any:
    """Apply ``fn`` to the leaves of plain containers (lists, tuples, sets, dicts)."""
    if depth > 16:
        return value
    if isinstance(value, list):
        return [map_leaves(v, fn, depth + 1) for v in value]
    if isinstance(value, tuple):
        return tuple(map_leaves(v, fn, depth + 1) for v in value)
    if isinstance(value, (set, frozenset)):
        return {map_leaves(v, fn, depth + 1) for v in value}
    if isinstance(value, dict):
        return {fn(k): map_leaves(v, fn, depth + 1) for k, v in dict.items(value)}
    return fn(value)


def flush_output() -> None:
    """Flush Python's streams, so what the code printed reaches the grader before the reply does."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001 - student code may have replaced or closed the stream
            pass


def to_array(v: Any) -> tuple | None:
    """A returned array (tensor, ndarray, numpy scalar) as (numpy copy, kind); None for anything else."""
    import numpy as np
    import torch

    if isinstance(v, torch.Tensor):
        with torch._C.DisableTorchFunction():  # a tensor subclass of the student's cannot run code here
            t = torch.Tensor.detach(v).cpu()
            if t.is_complex():
                return None
            check_size(torch.Tensor.numel(t) * torch.Tensor.element_size(t))
            return torch.Tensor.numpy(t.resolve_conj().resolve_neg()).copy(), "tensor"
    if isinstance(v, np.ndarray):
        check_size(np.ndarray.__dict__["nbytes"].__get__(v))
        return np.array(v, subok=False, copy=True), "ndarray"
    if isinstance(v, np.generic):
        return np.asarray(v.item() if isinstance(v, (np.integer, np.bool_)) else v), "scalar"
    return None


def plain(v: Any) -> Any:
    """Numpy and torch integer scalars become Python ints, so exact answers compare exactly."""
    import numpy as np
    import torch

    if isinstance(v, (np.integer, np.bool_)):
        return v.item()
    if isinstance(v, torch.Tensor) and v.dim() == 0 and not v.is_floating_point() and not v.is_complex():
        return v.item()
    return v


def encode_result(value: Any) -> tuple[Any, list]:
    """A returned value as the wire carries it: (tree, arrays)."""
    tree, blobs = wire.encode(map_leaves(value, plain), to_array)
    check_size(sum(b.nbytes for b in blobs))
    return tree, blobs


_monotonic = time.monotonic  # the watch's clocks, as the worker found them (student code may replace time's functions)
_process_time = time.process_time
STACK_MARK = (
    b"\x00autograder-stack "  # sandbox.output finds the line that follows it, and keeps it from the student's output
)
THREAD_START_SECONDS = 10.0  # how long the count of threads waits for the watching thread to run, at most
PIPE_BUF = 4096  # a write to a pipe of at most this many bytes is never interleaved with another process's or thread's


class StackAtLimit:
    """Just before the grader stops a call at its limit, write where it is: the file, line and function a student is
    told it was stopped in. One ``os.write`` of at most ``PIPE_BUF`` bytes to stderr, which the grader collects with
    what the code prints; so even a flood of output cannot split it. A thread, not a signal: the same on every platform.

    One thread per process, started at its first ``arm`` and woken by each later one: starting and ending a thread
    costs a test's process a millisecond or more, and a test arms the watch for its import and again for each call."""

    def __init__(self) -> None:
        # (thread to report on, monotonic time to report at, this process's CPU time to report at, or None)
        self.armed: tuple[int, float, float | None] | None = None
        self._wake = None  # released to make the watching thread look at ``armed`` again
        self._started = None  # released by the watching thread once it runs (and so counts among the threads)
        self._watcher_pid = 0  # the process whose thread watches (a fork has none)

    def start(self) -> None:
        """Start this process's watching thread now, unarmed (``arm`` starts it otherwise)."""
        import _thread

        if self._watcher_pid != os.getpid():
            self._wake, self._started = _thread.allocate_lock(), _thread.allocate_lock()
            self._wake.acquire()
            self._started.acquire()
            self._watcher_pid = os.getpid()
            _thread.start_new_thread(self._watch, (self._wake, self._started))

    def arm(self, request: dict) -> None:
        import _thread

        limit, cpu = request.get("limit"), request.get("cpu_limit")
        if type(limit) in (int, float) and limit > 0:
            cpu_at = _process_time() + _ahead(cpu) if type(cpu) in (int, float) and cpu > 0 else None
            self.armed = (_thread.get_ident(), _monotonic() + _ahead(limit), cpu_at)
            if self._watcher_pid != os.getpid():
                self.start()
            else:
                try:
                    self._wake.release()
                except RuntimeError:  # already released: the watcher looks again anyway
                    pass

    def disarm(self) -> None:
        self.armed = None

    @property
    def threads(self) -> int:
        """How many threads of this process the watch runs (0 before its first ``arm``). A new thread joins the
        interpreter's count of threads only once it runs, which a loaded machine can put off: this waits for that, so
        that a count read next includes it."""
        if self._watcher_pid != os.getpid():
            return 0
        if self._started.acquire(timeout=THREAD_START_SECONDS):
            self._started.release()
        return 1

    def _watch(self, wake, started) -> None:  # noqa: ANN001 - _thread locks
        started.release()  # after the interpreter counted this thread
        reported = None
        while True:
            armed = self.armed
            if armed is None or armed is reported:
                wake.acquire()
            elif _monotonic() >= armed[1] or (armed[2] is not None and _process_time() >= armed[2]):
                reported = armed
                try:
                    self._write(armed[0])
                except BaseException:  # noqa: BLE001 - student code may have broken what it uses; the watch goes on
                    pass
            else:  # one thread's CPU time passes no faster than the clock: look again when either mark may be reached
                wait = armed[1] - _monotonic()
                if armed[2] is not None:
                    wait = min(wait, max(armed[2] - _process_time(), 0.02))
                wake.acquire(timeout=max(wait, 0))

    @staticmethod
    def _write(target: int) -> None:
        import json

        frame, frames = sys._current_frames().get(target), []
        while frame is not None and len(frames) < 40:
            frames.append([frame.f_code.co_filename[-300:], frame.f_lineno, frame.f_code.co_name[:80]])
            frame = frame.f_back
        data = STACK_MARK + json.dumps(frames).encode() + b"\n"
        while len(data) > PIPE_BUF - 2 and frames:
            frames.pop()  # the outermost frames (the worker's own) go first
            data = STACK_MARK + json.dumps(frames).encode() + b"\n"
        try:
            os.write(2, b"\n" + data)
        except OSError:
            pass


def _ahead(limit: float) -> float:
    """How long into a limit the watch writes where the call is: just before the grader stops it."""
    return max(limit - min(0.5, 0.2 * limit), 0.05)


def argument_makers(callables: str | None = None) -> dict[str, Callable[..., Any]]:
    """How the wire's markers become the objects a student function receives; a named function comes with the source
    of its problem's ``callables.py``, or takes ``callables`` (the recording process, which runs one problem)."""
    import torch

    if __package__:
        from .callables import build
    else:
        from callables import build
    def seeded_global_state(seed: int) -> None:
        torch.manual_seed(seed)  # the arguments are rebuilt just before the call: nothing draws in between

    return {
        "tensor": lambda a: torch.from_numpy(a.copy()),
        "generator": lambda seed: torch.Generator().manual_seed(seed),
        "global_seed": seeded_global_state,
        "named": lambda name, source=None: build(name, source if source is not None else callables),
    }


def _digest(value: Any, into: Any) -> None:
    import numpy as np
    import torch

    if isinstance(value, torch.Tensor):
        with torch._C.DisableTorchFunction():
            t = torch.Tensor.detach(value).cpu()
            into.update(f"{t.dtype}{tuple(t.shape)}".encode())
            if (
                not t.is_complex()
            ):  # hashed in place: no copy of a large input (the worker's memory is the student's room)
                into.update(
                    np.ascontiguousarray(torch.Tensor.numpy(t.resolve_conj().resolve_neg()))
                    .reshape(-1)
                    .view(np.uint8)
                    .data
                )
    elif isinstance(value, np.ndarray):
        into.update(f"{value.dtype}{value.shape}".encode())
        into.update(np.ascontiguousarray(value).reshape(-1).view(np.uint8).data)
    elif isinstance(value, (list, tuple)):
        into.update(f"{type(value).__name__}{len(value)}".encode())
        for item in value[:10_000]:
            _digest(item, into)


def fingerprints(func: Callable, args: tuple, kwargs: dict) -> dict[str, str]:
    """A digest of the tensors and arrays in each argument, by the argument's name in ``func``'s signature."""
    import hashlib

    try:
        named = dict(inspect.signature(func).bind(*args, **kwargs).arguments)
    except (TypeError, ValueError):
        named = {f"{i + 1}": a for i, a in enumerate(args)} | dict(kwargs)
    digests = {}
    for name, value in named.items():
        into = hashlib.blake2b(digest_size=16)
        try:
            _digest(value, into)
        except Exception:  # noqa: BLE001 - a value the call turned into something unreadable counts as changed
            into.update(b"unreadable")
        digests[str(name)] = into.hexdigest()
    return digests


def changed_arguments(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """The arguments whose tensors or arrays the call modified in place (SPEC: functions never modify their
    arguments)."""
    return [name[:80] for name, digest in before.items() if after.get(name) != digest][:20]


Send = Callable[..., None]


class ModuleServer:
    """Imports one student module from ``submission`` and answers the calls into it."""

    def __init__(self, submission: str) -> None:
        self.submission = submission
        self.modules: dict[str, Any] = {}
        self.make = argument_makers()
        self.watch = StackAtLimit()

    def handle(self, request: dict, blobs: list, send: Send) -> None:
        """Answer one ``import`` or ``call`` request with ``send(header, blobs)``."""
        op = request.get("op")
        if op == "import":
            self._import(request, send)
        elif op == "call":
            self._call(request, blobs, send)
        else:
            send({"ok": False, "error": {"type": "ProtocolError", "message": f"unknown op {op!r}", "traceback": ""}})

    def _import(self, request: dict, send: Send) -> None:
        name = request["module"]
        folder = os.path.join(self.submission, folder_name(request.get("folder")))
        sys.path.insert(0, folder)  # this runs in the module's own process, so nothing leaks to the next
        os.chdir(folder)
        if (
            "allowed" in request
        ):  # the grading environment's packages: student code may import those and the standard library
            imports.install(self.submission, request["allowed"])
        start = time.perf_counter()
        self.watch.arm(request)
        try:
            spec = importlib.util.spec_from_file_location(name, os.path.join(folder, name + ".py"))
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
            self.modules[name] = module
            self.watch.disarm()
            send({"ok": True, "seconds": time.perf_counter() - start})
        except BaseException as exc:  # noqa: BLE001 - a student module may raise anything
            self.watch.disarm()
            sys.modules.pop(name, None)
            send({"ok": False, "error": describe_exception(exc, self.submission)})

    def _call(self, request: dict, blobs: list, send: Send) -> None:
        module = self.modules.get(request["module"])
        func = getattr(module, request["func"], None) if module is not None else None
        if not callable(func):
            send({"ok": False, "error": {"type": "AttributeError", "traceback": "",
                  "message": f"module {request['module']} has no function {request['func']}()"}})
            return
        call_args, call_kwargs = wire.decode(request["args"], blobs, self.make)
        before = fingerprints(func, call_args, call_kwargs)
        meter = request.get("meter")
        start = time.perf_counter()
        self.watch.arm(request)
        try:
            if isinstance(meter, dict):
                result, cost = metering.metered(func, call_args, call_kwargs, meter)
            else:
                result, cost = func(*call_args, **call_kwargs), None
        except BaseException as exc:  # noqa: BLE001
            self.watch.disarm()
            send({"ok": False, "error": describe_exception(exc, self.submission)})
            return
        self.watch.disarm()
        seconds = time.perf_counter() - start
        changed = changed_arguments(before, fingerprints(func, call_args, call_kwargs))
        try:
            tree, out_blobs = encode_result(result)
        except BaseException as exc:  # noqa: BLE001 - a hostile return value may raise on inspection
            send({"ok": False, "error": {"type": "BadReturnValue", "traceback": "",
                  "message": f"the returned value could not be read: {type(exc).__name__}: {text_of(exc)}"}})
            return
        extra = ({"changed": changed} if changed else {}) | ({"metered": cost} if cost is not None else {})
        send({"ok": True, "value": tree, "seconds": seconds} | extra, out_blobs)
