"""The portable worker: a child Python that serves modules in turn, for self-checks where the Linux sandbox cannot run.

Started by ``autograder.sandbox.portable`` as ``python -I -B portable_worker.py --submission DIR``. It
imports torch, says ``ready``, then answers an ``import`` and the ``call``s into that module, on the
same wire as ``worker.py``: requests on stdin, replies on (a private copy of) stdout. The next ``import`` is served
only if the module before left the process as it found it (``reuse``); else it answers ``replace`` and exits, and the
grader asks a fresh process. What the module
prints, from Python or from C, goes to stderr, which the grader collects. Only the standard library,
numpy and torch: no fork, nothing from fcntl, termios, resource, grp, pwd or /proc (macOS, Windows).
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import reuse  # noqa: E402
import serving  # noqa: E402 - the one implementation of a module's side of the wire (beside this file)
import wire  # noqa: E402


def _channels() -> tuple:
    """Private copies of stdin and stdout for the wire; the student's code gets an empty stdin and stdout joins
    stderr."""
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

    import torch

    torch.set_num_threads(1)
    server = serving.ModuleServer(os.path.abspath(args.submission))
    baseline = reuse.Baseline()
    def write_all(_fd, data) -> None:
        view = memoryview(data).cast("B")
        while view:
            view = view[replies.write(view):]

    def replier(request_id):
        """How to answer one request: every reply carries its id."""

        def reply(header: dict, blobs: list | None = None) -> None:
            serving.flush_output()  # what the code printed reaches the grader before the reply does
            wire.write_message(None, dict(header, id=request_id), blobs or [], write_all)

        return reply

    read_requests = wire.stream_reader(requests)
    served = False  # whether a module was imported here (or tried to be): the next one needs the process as it was
    replier(None)({"ok": True, "ready": True, "pid": os.getpid()})
    while True:
        try:
            request, blobs = wire.read_message(None, read_requests)
        except EOFError:
            os._exit(0)
        reply, op = replier(request.get("id")), request.get("op")
        if op == "import" and served:
            baseline.restore(
                server.submission
            )  # first: what serving changes itself (the import guard among it) is no change
            server.modules.clear()
            changed = baseline.changes(own_threads=server.watch.threads)
            if changed:
                reply({"ok": False, "replace": changed[:10]})
                os._exit(0)
        served = served or op == "import"
        if op in ("import", "call"):
            server.handle(request, blobs, reply)
        else:
            reply(
                {"ok": False, "error": {"type": "ProtocolError", "message": f"unexpected op {op!r}", "traceback": ""}}
            )


if __name__ == "__main__":
    main()
