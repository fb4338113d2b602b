"""The portable worker path: a self-check runs student code out of process where the Linux sandbox cannot.

On macOS, Windows, or a Linux Python without ``fcntl``/``resource``/``os.fork``/``/proc``, ``check``
runs student code in a child Python (``worker/portable_main.py``), started with ``subprocess``; pipes are read by
threads and a call past its time limit ends the child. Same wire, same messages as the sandbox, but no memory limit and
no file or network confinement: it is for a student's own code on their own machine. Staff commands never use it
(``refuse_unsandboxed``).

What each child isolates: the modules from the grader, always (a hang, a crash, an exit or a flood ends the child, not
the check); one module from the next only as far as ``worker/reuse`` compares: a child serves the modules in turn (one
torch import per check, the cost of a check) while each leaves it as it found it, and is replaced when one does not,
or when a call is stopped or the child ends. The tests of one module share its child (public tests only: the
per-test process that hides hidden tests' timing from a submission would cost a torch import each).
"""

from __future__ import annotations

import itertools
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from . import codec, environment, errors, staging
from .errors import SandboxFault, StudentCallError, import_failure
from .exchange import STARTUP_SECONDS, Exchange
from .output import Drain, OutputBuffer
from .worker import wire

WORKER = Path(__file__).resolve().parent / "worker" / "portable_main.py"


def describe(reason: str) -> str:
    """The protections line of a portable self-check."""
    return (
        f"sandbox: portable path ({reason}): student code in a child process, a fresh one for a module that changes "
        "what "
        "the next would see, per-call time limit; "
        "not available: memory limit, file and network confinement (fine for your own code; staff grading refuses this "
        "path)"
    )


class _Child:
    """One child Python that serves one module; its replies and its printed output are read by threads."""

    def __init__(self, submissions: Path, output: OutputBuffer) -> None:
        env = dict(
            os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONDONTWRITEBYTECODE="1", PYTHONIOENCODING="utf-8"
        )
        group = (
            {"start_new_session": True}
            if os.name == "posix"
            else {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
        )
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-B", str(WORKER), "--submission", str(submissions)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=submissions,
            env=env,
            **group,
        )
        self.replies: queue.Queue = queue.Queue()
        self.ready = False
        threading.Thread(target=self._read_replies, daemon=True).start()
        self.drain = Drain(self.proc.stderr, output)

    def _read_replies(self) -> None:
        read_exact = wire.stream_reader(self.proc.stdout)
        try:
            while True:
                self.replies.put(codec.read_reply(None, read_exact, wire.MAX_MESSAGE_BYTES))
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting grader
            self.replies.put(exc)

    def settle(self, timeout: float = 0.5) -> None:
        """Wait briefly until the drain thread has taken what the child printed so far (it flushes before each
        reply)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end and self.drain.is_alive():
            if self.drain.caught_up():
                if self.drain.exact:
                    return
                time.sleep(0.005)  # the thread may just have woken with more: look twice
                if self.drain.caught_up():
                    return
            time.sleep(0.002)

    def send(self, header: dict, blobs: list) -> None:
        def write_all(_fd, data) -> None:
            self.proc.stdin.write(data)

        wire.write_message(None, header, blobs, write_all)
        self.proc.stdin.flush()

    def receive(self, deadline: float) -> tuple[dict, list]:
        try:
            item = self.replies.get(timeout=max(deadline - time.monotonic(), 0.0))
        except queue.Empty:
            raise TimeoutError from None
        if isinstance(item, BaseException):
            self.replies.put(item)
            raise item if isinstance(item, (EOFError, wire.WireError)) else EOFError(str(item))
        return item

    def wait_ready(self) -> None:
        if self.ready:
            return
        try:
            header, _ = self.receive(time.monotonic() + STARTUP_SECONDS)
        except (TimeoutError, EOFError, wire.WireError) as exc:
            self.kill()
            raise SandboxFault(f"the checking process did not start ({type(exc).__name__})") from None
        if not header.get("ready"):
            self.kill()
            raise SandboxFault("the checking process sent an unexpected greeting")
        self.ready = True

    def kill(self) -> None:
        """End the child and, where process groups exist, whatever it started."""
        if os.name == "posix":
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            self.proc.kill()
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            pass
        try:
            self.proc.stdin.close()
        except (OSError, ValueError):  # a write the child never read
            pass

    def exit_description(self) -> str:
        try:
            code = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "stopped answering"
        if code < 0:
            sig = -code
            name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
            return f"was killed by signal {name}"
        return f"exited with status {code} (sys.exit or os._exit in student code?)"


class PortableSession:
    """Serves ``grading.grade`` like ``WorkerSession``: stage, switch, call; one child for the modules in turn, a fresh
    one where the last module changed the child or the child was ended."""

    def __init__(self, reason: str, planned: int = 6) -> None:
        self.reason = reason
        self.output = OutputBuffer()
        self.root = Path(tempfile.mkdtemp(prefix="autograder-check-"))
        self.submissions = self.root / "submissions"
        self.submissions.mkdir()
        self.folder: str | None = None
        self.broken: dict[str, str] = {}
        self.exchanges: list[Exchange] = []  # what each import and call of the current submission cost
        self.restarts = 0
        self._planned = planned  # modules still to import: no child is started that none will use
        self._spare: _Child | None = None  # importing torch ahead of the module that will need it
        self._child: _Child | None = None
        self._live: tuple | None = None
        self._ids = itertools.count(1)
        self._staged = itertools.count(1)

    def describe(self) -> str:
        return describe(self.reason)

    def stage(self, sources: Mapping[str, bytes]) -> str:
        """Copy the found modules into a fresh folder; return its name."""
        return staging.stage_sources(sources, self.submissions, f"submission-{next(self._staged)}").name

    def discard(self, folder: str) -> None:
        staging.discard(self.submissions / folder)

    def switch(self, folder: str) -> None:
        self.settle_output()
        self.folder = folder
        self.output.clear()
        self.broken, self.exchanges = {}, []

    def start(self) -> None:
        """Start a child now if a module will need one, so that torch loads while the grader prepares."""
        if self._child is None and self._spare is None and self._planned > 0:
            self._spare = _Child(self.submissions, self.output)

    def settle_output(self) -> None:
        if self._child is not None:
            self._child.settle()

    def fresh(self, module: str) -> None:
        """Keep the module's child between tests: a self-check runs the student's own code on public tests only,
        so the per-test process that hides hidden tests' timing from a submission would cost a torch import each."""

    def _end_child(self) -> None:
        if self._child is not None:
            self._child.kill()
            self._child.settle()
            self._child, self._live = None, None

    def _fresh_child(self) -> _Child:
        child, self._spare = self._spare or _Child(self.submissions, self.output), None
        child.wait_ready()
        return child

    def import_module(self, module: str, seconds: float) -> None:
        """Import ``module`` in a fresh child; raise ``StudentCallError`` if that fails."""
        if module in self.broken:
            raise StudentCallError(self.broken[module], "import")
        if self._live == (self.folder, module) and self._child is not None:
            return
        if self._live is None and any(e.module == module for e in self.exchanges):
            self.restarts += 1
        if not any(e.module == module for e in self.exchanges):
            self._planned = max(self._planned - 1, 0)
        request = {"op": "import", "module": module} | ({"folder": self.folder} if self.folder else {})
        allowed = environment.student_libraries()
        request |= (
            {"allowed": list(allowed)} if allowed else {}
        )  # none found: no guard, rather than refusing numpy and torch
        header = self._reused_import(request, seconds, module) if self._child is not None else None
        if header is None:
            self._end_child()
            self._child = self._fresh_child()
            header = self._exchange(request, [], seconds, f"importing {module}.py")
        self._live = (self.folder, module)
        if not header.get("ok"):
            self.broken[module] = import_failure(module, header.get("error", {}))
            raise StudentCallError(self.broken[module], "import")

    def _reused_import(self, request: dict, seconds: float, module: str) -> dict | None:
        """Ask the current child to serve ``module`` next; None when it must be replaced: the last module changed it, or
        the child ended or garbled its reply (which the module before may have caused: a fresh child tries again)."""
        self._live = None
        try:
            header = self._exchange(request, [], seconds, f"importing {module}.py")
        except StudentCallError as exc:
            if exc.kind not in (errors.CRASH, errors.GARBAGE):
                raise
            self.broken.pop(module, None)
            header = {"replace": [str(exc)]}
        else:
            if header.get("replace") is None:
                return header
        self.exchanges.pop()  # no time of this module's: its import is judged in the fresh child
        self._end_child()
        return None

    def call(
        self,
        module: str,
        func: str,
        args: tuple,
        kwargs: dict,
        seconds: float,
        shown: str,
        meter: dict | None = None,
        backstop: float | None = None,
    ) -> Any:
        """Run ``module.func(*args, **kwargs)`` in the module's child within ``seconds`` of wall clock (``backstop``,
        never less, is the sandbox's); return plain data."""
        self.import_module(module, seconds)
        tree, blobs = codec.encode_call(args, kwargs)
        header = self._exchange(
            {"op": "call", "module": module, "func": func, "args": tree}
            | ({"meter": meter} if meter is not None else {}),
            blobs,
            seconds,
            shown,
        )
        return errors.answer(shown, header, meter)

    def _exchange(self, request: dict, blobs: list, seconds: float, shown: str) -> dict:
        child, request = self._child, dict(request, id=next(self._ids), limit=seconds)
        start, stopped, printed = time.monotonic(), True, self.output.fed
        timer = threading.Timer(seconds, child.kill)  # ends a child that stops reading while the grader writes to it
        timer.start()
        try:
            child.send(request, blobs)
            header, out_blobs = child.receive(start + seconds)
            if header.get("id") != request["id"]:
                raise wire.WireError("a reply that does not answer this request")
            if request["op"] == "call" and header.get("ok") and "value" not in header:
                raise wire.WireError("a reply without a value")
            if "value" in header:
                header["value_decoded"] = codec.decode_value(header["value"], out_blobs)
            stopped = False
            return header
        except (TimeoutError, OSError, EOFError) as exc:
            timed_out = isinstance(exc, TimeoutError) or time.monotonic() - start >= seconds
            what = None if timed_out else child.exit_description()
            self._end_child()
            self.start()  # the next module's child imports torch while this failure is reported
            if timed_out:
                self._mark_if_import(request, f"{shown} did not finish within {seconds:g} s; it was stopped")
                raise errors.timed_out(
                    shown, seconds, self.output.stopped_at(printed), self.folder, self.output.fed - printed
                ) from None
            self._mark_if_import(request, f"the process {what} while {shown}")
            raise errors.crashed(shown, what) from None
        except (wire.WireError, KeyError, ValueError, TypeError) as exc:
            self._end_child()
            raise errors.unreadable(shown, exc) from None
        finally:
            timer.cancel()
            self.exchanges.append(
                Exchange(
                    request["module"],
                    request["op"],
                    request.get("func", ""),
                    time.monotonic() - start,
                    seconds,
                    stopped,
                )
            )

    def _mark_if_import(self, request: dict, text: str) -> None:
        if request.get("op") == "import":
            self.broken[request["module"]] = errors.broken_import(request["module"], text)

    def close(self) -> None:
        """End every child and remove the staged copies."""
        self._end_child()
        if self._spare is not None:
            self._spare.kill()
            self._spare = None
        shutil.rmtree(self.root, ignore_errors=True)

