"""The worker: the only process that imports and runs student code.

Started by ``autograder.sandbox.client`` (inside bubblewrap where available) as
``python -I -B worker.py --submission DIR ...``. It drops privileges and sets its limits
before importing anything a student wrote, then answers requests on two pipe fds:
``import`` a module, ``call`` a function. Replies hold only plain data (see ``wire``).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

MAX_TEXT = 4000


def drop_privileges(uid: int, gid: int) -> None:
    """Become ``uid``/``gid`` for good (real, effective and saved ids), dropping all capabilities."""
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    if os.getuid() != uid or os.geteuid() != uid:
        raise SystemExit("could not drop privileges")


def set_limits(memory_mb: int, max_processes: int, max_file_mb: int) -> None:
    """Cap address space, process count, file size and core dumps for this process tree."""
    import resource

    def cap(which: int, value: int) -> None:
        soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, value))

    if memory_mb > 0:
        cap(resource.RLIMIT_AS, memory_mb << 20)
    if max_processes > 0 and os.getuid() != 0:
        cap(resource.RLIMIT_NPROC, max_processes)
    cap(resource.RLIMIT_FSIZE, max_file_mb << 20)
    cap(resource.RLIMIT_CORE, 0)


def describe_exception(exc: BaseException, submission: str) -> dict:
    """The error as the student should see it: type, message, and only their own frames."""
    tb = traceback.TracebackException.from_exception(exc, limit=50)
    own = [f for f in tb.stack if f.filename.startswith(submission)]
    tb.stack = traceback.StackSummary.from_list(own)
    text = "".join(tb.format())
    if len(text) > MAX_TEXT:
        text = text[: MAX_TEXT // 2] + "\n...\n" + text[-MAX_TEXT // 2 :]
    try:
        message = str(exc)
    except BaseException:
        message = "<unprintable exception>"
    return {"type": type(exc).__name__, "message": message[:MAX_TEXT], "traceback": text}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--submission", required=True)
    parser.add_argument("--fd-in", type=int, required=True)
    parser.add_argument("--fd-out", type=int, required=True)
    parser.add_argument("--uid", type=int, default=-1)
    parser.add_argument("--gid", type=int, default=-1)
    parser.add_argument("--memory-mb", type=int, default=0)
    parser.add_argument("--max-processes", type=int, default=256)
    parser.add_argument("--max-file-mb", type=int, default=64)
    args = parser.parse_args()

    if args.uid >= 0:
        drop_privileges(args.uid, args.gid)
    set_limits(args.memory_mb, args.max_processes, args.max_file_mb)

    import callables
    import numpy as np
    import torch
    import wire

    torch.set_num_threads(1)
    fd_in, fd_out = args.fd_in, args.fd_out
    submission = os.path.abspath(args.submission)
    sys.path.insert(0, submission)
    os.chdir(submission)
    modules: dict[str, object] = {}

    def to_array(v):
        if isinstance(v, torch.Tensor):
            with torch._C.DisableTorchFunction():
                t = torch.Tensor.detach(v).cpu()
                if t.is_complex():
                    return None
                return torch.Tensor.numpy(t.resolve_conj().resolve_neg()).copy(), "tensor"
        if isinstance(v, np.ndarray):
            return np.array(v, subok=False, copy=True), "ndarray"
        if isinstance(v, np.generic):
            return np.asarray(v.item() if isinstance(v, (np.integer, np.bool_)) else v), "scalar"
        return None

    def plain(v):
        # numpy/torch integer scalars become Python ints so exact answers compare exactly
        if isinstance(v, (np.integer, np.bool_)):
            return v.item()
        if isinstance(v, torch.Tensor) and v.dim() == 0 and not v.is_floating_point() and not v.is_complex():
            return v.item()
        return v

    make = {
        "tensor": lambda a: torch.from_numpy(a.copy()),
        "generator": lambda seed: torch.Generator().manual_seed(seed),
        "named": callables.build,
    }

    def reply(header: dict, blobs: list | None = None) -> None:
        wire.write_message(fd_out, header, blobs or [])

    def handle(request: dict, blobs: list) -> None:
        op = request.get("op")
        if op == "import":
            name = request["module"]
            path = os.path.join(submission, name + ".py")
            start = time.perf_counter()
            try:
                spec = importlib.util.spec_from_file_location(name, path)
                module = importlib.util.module_from_spec(spec)
                sys.modules[name] = module
                spec.loader.exec_module(module)
                modules[name] = module
                reply({"ok": True, "seconds": time.perf_counter() - start})
            except BaseException as exc:  # noqa: BLE001 - a student module may raise anything
                sys.modules.pop(name, None)
                reply({"ok": False, "error": describe_exception(exc, submission)})
            return
        if op == "call":
            module = modules.get(request["module"])
            func = getattr(module, request["func"], None) if module is not None else None
            if not callable(func):
                reply({"ok": False, "error": {"type": "AttributeError", "traceback": "",
                       "message": f"module {request['module']} has no function {request['func']}()"}})
                return
            call_args, call_kwargs = wire.decode(request["args"], blobs, make)
            start = time.perf_counter()
            try:
                result = func(*call_args, **call_kwargs)
            except BaseException as exc:  # noqa: BLE001
                reply({"ok": False, "error": describe_exception(exc, submission)})
                return
            seconds = time.perf_counter() - start
            try:
                tree, out_blobs = wire.encode(_map(result, plain), to_array)
            except BaseException as exc:  # noqa: BLE001 - a hostile return value may raise on inspection
                reply({"ok": False, "error": {"type": "BadReturnValue", "traceback": "",
                       "message": f"the returned value could not be read: {type(exc).__name__}: {exc}"}})
                return
            reply({"ok": True, "value": tree, "seconds": seconds}, out_blobs)
            return
        if op == "ping":
            reply({"ok": True})
            return
        reply({"ok": False, "error": {"type": "ProtocolError", "message": f"unknown op {op!r}", "traceback": ""}})

    reply({"ok": True, "ready": True, "pid": os.getpid()})
    while True:
        try:
            request, blobs = wire.read_message(fd_in)
        except EOFError:
            os._exit(0)
        handle(request, blobs)


def _map(value, fn, depth: int = 0):
    """Apply ``fn`` to the leaves of plain containers (lists, tuples, sets, dicts)."""
    if depth > 16:
        return value
    if isinstance(value, list):
        return [_map(v, fn, depth + 1) for v in value]
    if isinstance(value, tuple):
        return tuple(_map(v, fn, depth + 1) for v in value)
    if isinstance(value, (set, frozenset)):
        return {_map(v, fn, depth + 1) for v in value}
    if isinstance(value, dict):
        return {fn(k): _map(v, fn, depth + 1) for k, v in dict.items(value)}
    return fn(value)


if __name__ == "__main__":
    main()
