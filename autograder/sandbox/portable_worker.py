"""The portable worker: one child Python per module, for self-checks where the Linux sandbox cannot run.

Started by ``autograder.sandbox.portable`` as ``python -I -B portable_worker.py --submission DIR``. It
imports torch, says ``ready``, then answers one ``import`` and the ``call``s into that module, on the
same wire as ``worker.py``: requests on stdin, replies on (a private copy of) stdout. What the module
prints, from Python or from C, goes to stderr, which the grader collects. Only the standard library,
numpy and torch: no fork, nothing from fcntl, termios, resource, grp, pwd or /proc (macOS, Windows).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import worker  # noqa: E402 - the shared helpers (describe_exception, ...); worker.py imports nothing Unix-only at load


def _channels() -> tuple:
    """Private copies of stdin and stdout for the wire; the student's code gets an empty stdin and stdout joins stderr."""
    requests = os.fdopen(os.dup(0), "rb", buffering=0)
    replies = os.fdopen(os.dup(1), "wb", buffering=0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - lives as long as the process
    return requests, replies


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--submission", required=True)
    args = parser.parse_args()
    requests, replies = _channels()

    import callables
    import numpy as np
    import torch
    import wire

    torch.set_num_threads(1)
    submission = os.path.abspath(args.submission)
    current_id: list = [None]
    modules: dict[str, object] = {}

    def read_exact(_fd, n: int) -> bytearray:
        buffer, view, got = bytearray(n), None, 0
        view = memoryview(buffer)
        while got < n:
            k = requests.readinto(view[got:])
            if not k:
                raise EOFError("channel closed")
            got += k
        return buffer

    def write_all(_fd, data) -> None:
        view = memoryview(data).cast("B")
        while view:
            view = view[replies.write(view):]

    def reply(header: dict, blobs: list | None = None) -> None:
        worker._flush_output()  # what the code printed reaches the grader before the reply does
        wire.write_message(None, dict(header, id=current_id[0]), blobs or [], write_all)

    def to_array(v):
        if isinstance(v, torch.Tensor):
            with torch._C.DisableTorchFunction():
                t = torch.Tensor.detach(v).cpu()
                if t.is_complex():
                    return None
                worker._check_size(torch.Tensor.numel(t) * torch.Tensor.element_size(t))
                return torch.Tensor.numpy(t.resolve_conj().resolve_neg()).copy(), "tensor"
        if isinstance(v, np.ndarray):
            worker._check_size(np.ndarray.__dict__["nbytes"].__get__(v))
            return np.array(v, subok=False, copy=True), "ndarray"
        if isinstance(v, np.generic):
            return np.asarray(v.item() if isinstance(v, (np.integer, np.bool_)) else v), "scalar"
        return None

    def plain(v):
        if isinstance(v, (np.integer, np.bool_)):
            return v.item()
        if isinstance(v, torch.Tensor) and v.dim() == 0 and not v.is_floating_point() and not v.is_complex():
            return v.item()
        return v

    make = {"tensor": lambda a: torch.from_numpy(a.copy()), "generator": lambda seed: torch.Generator().manual_seed(seed),
            "named": callables.build}

    def import_module(request: dict) -> None:
        name, folder = request["module"], os.path.join(submission, worker._folder_name(request.get("folder")))
        sys.path.insert(0, folder)
        os.chdir(folder)
        start = time.perf_counter()
        try:
            spec = importlib.util.spec_from_file_location(name, os.path.join(folder, name + ".py"))
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
            modules[name] = module
            reply({"ok": True, "seconds": time.perf_counter() - start})
        except BaseException as exc:  # noqa: BLE001 - a student module may raise anything
            sys.modules.pop(name, None)
            reply({"ok": False, "error": worker.describe_exception(exc, submission)})

    def call(request: dict, blobs: list) -> None:
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
            reply({"ok": False, "error": worker.describe_exception(exc, submission)})
            return
        seconds = time.perf_counter() - start
        try:
            tree, out_blobs = wire.encode(worker._map(result, plain), to_array)
            worker._check_size(sum(b.nbytes for b in out_blobs))
        except BaseException as exc:  # noqa: BLE001 - a hostile return value may raise on inspection
            reply({"ok": False, "error": {"type": "BadReturnValue", "traceback": "",
                                          "message": f"the returned value could not be read: {type(exc).__name__}: {worker._text(exc)}"}})
            return
        reply({"ok": True, "value": tree, "seconds": seconds}, out_blobs)

    reply({"ok": True, "ready": True, "pid": os.getpid()})
    while True:
        try:
            request, blobs = wire.read_message(None, read_exact)
        except EOFError:
            os._exit(0)
        current_id[0] = request.get("id")
        op = request.get("op")
        if op == "import" and not modules:
            import_module(request)
        elif op == "call":
            call(request, blobs)
        else:
            reply({"ok": False, "error": {"type": "ProtocolError", "message": f"unexpected op {op!r}", "traceback": ""}})


if __name__ == "__main__":
    main()
