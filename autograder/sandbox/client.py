"""The grader's side of the sandbox: start a worker, send calls, enforce the wall clock.

A ``WorkerSession`` serves one submission. It starts a worker lazily, imports a module on
its first call (in a fresh child of the worker: switching modules resets it), and replaces
a worker that was killed (timeout) or died (crash, exit, memory) with a fresh one for the
next call. Each module may have a time budget for all its calls together. Every failure
comes back as a ``StudentCallError`` carrying a message written for the student.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import secrets
import select
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import submission
from . import cleanup, identity, policy, runtime, wire

STARTUP_SECONDS = 120.0
RESET_SECONDS = 30.0  # the worker ends the module's processes and wipes what it wrote: charged to no student
INTERRUPT_SECONDS = 5.0
WORKER_BROKEN = 70  # worker.py's exit status when a module broke the worker's own code
MAX_REPLY_BYTES = 256 << 20  # arrays in one reply (worker.py refuses more before sending)
OUTPUT_LIMIT = 64 * 1024
WATCH_SECONDS = 0.25  # how often a running call's written files are measured
SCRATCH_MB = policy.TMP_MB
HARNESS_ROOT = Path(__file__).resolve().parents[2]  # the project the harness runs from: private to the sandbox user


class SandboxFault(RuntimeError):
    """The sandbox itself failed (a layer could not be applied): a fault of the grader's machine, never of the student."""


class StudentCallError(AssertionError):
    """A call into student code failed: it raised, timed out, crashed, or returned garbage."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass
class OutputBuffer:
    """Keeps the first ``OUTPUT_LIMIT`` bytes printed since the last ``mark`` and counts the rest."""

    data: bytearray = field(default_factory=bytearray)
    dropped: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def feed(self, chunk: bytes) -> None:
        with self.lock:
            room = OUTPUT_LIMIT - len(self.data)
            self.data += chunk[: max(room, 0)]
            self.dropped += max(len(chunk) - max(room, 0), 0)

    def text(self) -> str:
        return self.since(0)

    def clear(self) -> None:
        """Forget everything collected so far (a new submission starts)."""
        with self.lock:
            self.data, self.dropped = bytearray(), 0

    def mark(self) -> int:
        """Start a new window (one per problem, so one module's flood cannot hide another's output)."""
        with self.lock:
            self.data, self.dropped = bytearray(), 0
            return 0

    def since(self, mark: int) -> str:
        """Output printed after ``mark`` (within what was kept)."""
        with self.lock:
            text = bytes(self.data[mark:]).decode("utf-8", "replace") if mark < len(self.data) else ""
            return text + (f"\n[... {self.dropped} more bytes of output dropped]" if self.dropped else "")


class _Unreadable(wire.WireError):
    """The worker refused what the module's process wrote on its reply pipe and ended that process."""


class _Overuse(Exception):
    """A call used more than it may of something other than time (the scratch folder's size)."""


class _Worker:
    """One live worker process and its pipes."""

    def __init__(self, setup: _Setup, memory_mb: int, output: OutputBuffer) -> None:
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        self.setup = setup
        self.marker = secrets.token_hex(8)
        scratch = "/tmp" if setup.protections.bwrap else str(setup.box.scratch)
        env = dict(policy.worker_env(setup.interpreter, scratch), AUTOGRADER_WORKER=self.marker)
        who = setup.identity
        cmd = policy.worker_command(setup.protections, setup.interpreter, setup.box, memory_mb, fd_in=req_r, fd_out=rep_w,
                                    uid=who.uid if who else None, gid=who.gid if who else None)
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            pass_fds=(req_r, rep_w), env=env, start_new_session=True, cwd="/",
        )
        os.close(req_r)
        os.close(rep_w)
        self.to_worker, self.from_worker = req_w, rep_r
        os.set_blocking(self.to_worker, False)
        self.reading = threading.Event()
        self.drain = threading.Thread(target=self._drain, args=(self.proc.stdout, output), daemon=True)
        self.drain.start()
        self.killed_by_us = False
        self.inside_pid: int | None = None  # the worker's pid as it sees itself (its greeting says)
        self.host_pid: int | None = None  # the same process as the grader sees it

    def _drain(self, stream, output: OutputBuffer) -> None:
        while True:
            self.reading.set()
            chunk = stream.read1(65536)
            self.reading.clear()
            if not chunk:
                return
            output.feed(chunk)

    def settle_output(self, timeout: float = 1.0) -> None:
        """Wait (briefly) until everything the worker printed so far is in the output buffer."""
        import fcntl  # Unix only: imported here so that the portable path (Windows) can import this module
        import termios

        end = time.monotonic() + timeout
        while time.monotonic() < end and self.drain.is_alive():
            try:
                pending = int.from_bytes(fcntl.ioctl(self.proc.stdout.fileno(), termios.FIONREAD, b"\0" * 4), "little")
            except (OSError, ValueError):
                return
            if pending == 0 and self.reading.is_set():
                return
            time.sleep(0.002)

    def send(self, header: dict, blobs: list[np.ndarray], deadline: float) -> None:
        """Write a request; a worker that stops reading cannot block the grader past ``deadline``."""

        def write_all(fd: int, data) -> None:
            view = memoryview(data).cast("B")
            while view:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not select.select([], [fd], [], remaining)[1]:
                    raise TimeoutError
                try:
                    view = view[os.write(fd, view):]
                except BlockingIOError:
                    continue

        wire.write_message(self.to_worker, header, blobs, write_all)

    def receive(self, deadline: float, watch=None) -> tuple[dict, list[np.ndarray]]:
        """Read one reply by ``deadline``; while waiting, ``watch()`` may stop the call by returning a reason."""

        def read_exact(fd: int, n: int) -> bytearray:
            buffer, got = bytearray(), 0  # grown as bytes arrive: a length that is promised costs nothing until it is sent
            while got < n:
                if len(buffer) == got:
                    buffer.extend(bytes(min(n - got, max(got, 1 << 20))))
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError
                if not select.select([fd], [], [], min(remaining, WATCH_SECONDS))[0]:
                    reason = watch() if watch is not None else None
                    if reason:
                        raise _Overuse(reason)
                    continue
                got = wire.read_into(fd, buffer, got)
            return buffer

        return wire.read_message(self.from_worker, read_exact, MAX_REPLY_BYTES)

    def interrupt(self) -> bool:
        """Kill only the module's child after a timeout (the worker forks a fresh one); False if that failed."""
        pid = self._host_pid()
        if pid is None:
            return False
        try:
            os.kill(pid, signal.SIGUSR1)
            deadline = time.monotonic() + INTERRUPT_SECONDS
            while True:  # skip what the stopped call may still have sent
                header, _ = self.receive(deadline)
                if header.get("interrupted"):
                    return True
        except (TimeoutError, EOFError, OSError, wire.WireError):
            return False

    def _host_pid(self) -> int | None:
        """The worker's first process as the grader sees it (inside bubblewrap it has another pid)."""
        if self.host_pid is not None:
            return self.host_pid if self.proc.poll() is None else None
        if self.inside_pid is None or self.proc.poll() is not None:
            return None
        parents: dict[int, list[int]] = {}
        for entry in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            parents.setdefault(ppid, []).append(int(entry))
        todo = [self.proc.pid]
        while todo:
            pid = todo.pop()
            try:
                with open(f"/proc/{pid}/status") as f:
                    nspids = next(line.split()[1:] for line in f if line.startswith("NSpid:"))
            except (OSError, StopIteration):
                nspids = []
            if nspids and int(nspids[-1]) == self.inside_pid and self.marker.encode() in _environ(pid):
                return pid
            todo += parents.get(pid, [])
        return None

    def leftovers(self) -> list[int]:
        """Processes the sandbox still runs besides the worker's first process, found in /proc (never by asking the worker):
        its descendants (orphans come back to it, a subreaper) and, with a uid of its own, every process of that uid."""
        table = _process_table()
        first = self.host_pid
        if first is None or first not in table:
            return [0]  # the first process itself is gone or cannot be seen: nothing can be confirmed
        children: dict[int, list[int]] = {}
        for pid, (ppid, _uid, _zombie) in table.items():
            children.setdefault(ppid, []).append(pid)
        found, todo = set(), list(children.get(first, []))
        while todo:
            pid = todo.pop()
            if pid not in found:
                found.add(pid)
                todo += children.get(pid, [])
        if self.setup.identity is not None:
            found |= {pid for pid, (_ppid, uid, _zombie) in table.items() if uid == self.setup.identity.uid}
        found.discard(first)
        return sorted(pid for pid in found if pid in table and not table[pid][2])

    def kill(self) -> None:
        """SIGKILL the worker's whole session and every process of its uid; bubblewrap's PID namespace takes the rest."""
        self.killed_by_us = True
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        _sweep(self.marker)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        if self.setup.identity is not None:
            identity.kill_all(self.setup.identity.uid, self.setup.identity.gid)
            cleanup.remove_sysv_ipc(self.setup.identity.uid)
        if not self.setup.protections.bwrap:  # bubblewrap's /tmp went with its namespace
            cleanup.remove_tree(str(self.setup.box.scratch), keep_folder=True)
        for fd in (self.to_worker, self.from_worker):
            try:
                os.close(fd)
            except OSError:
                pass
        self.drain.join(timeout=2)

    def exit_description(self) -> str:
        code = self.proc.poll()
        if code is None:
            try:
                code = self.proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                return "stopped answering"
        if code == WORKER_BROKEN:
            return "stopped because the module broke the grader's code in its process (by replacing Python built-ins, say)"
        if code < 0 or code > 128:
            sig = -code if code < 0 else code - 128
            name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
            hint = " (often: the memory limit was exceeded)" if sig in (signal.SIGKILL, signal.SIGSEGV, signal.SIGABRT) else ""
            return f"was killed by signal {name}{hint}"
        return f"exited with status {code} (sys.exit or os._exit in student code?)"


def _process_table() -> dict[int, tuple[int, int, bool]]:
    """pid -> (parent pid, uid, zombie) of every process this grader can see (the uid is the owner of its /proc folder:
    its effective uid, which a sandbox uid cannot change)."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            uid = os.stat(f"/proc/{entry}").st_uid
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            table[int(entry)] = (int(fields[1]), uid, fields[0] == b"Z")
        except (OSError, ValueError, IndexError):
            continue
    return table


def _environ(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return f.read()
    except OSError:
        return b""


def _sweep(marker: str) -> None:
    """Kill processes that left the worker's session but still carry its environment marker."""
    token = f"AUTOGRADER_WORKER={marker}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if token in f.read().split(b"\0"):
                    os.kill(int(entry), signal.SIGKILL)
        except (OSError, ValueError):
            continue


@dataclass
class _Setup:
    """What every worker of a session shares: the layers, its uid, its folders and its Python."""

    protections: policy.Protections
    identity: identity.Identity | None
    box: runtime.Box
    interpreter: runtime.Interpreter

    @classmethod
    def create(cls, private: tuple[Path, ...], self_check: bool = False) -> _Setup:
        protections = policy.detect()
        if self_check:  # the student's own code, as root (Colab): no uid switch, no chmod, no mirror or lock left behind
            protections = dataclasses.replace(protections, is_root=False)
        who = identity.lease() if protections.drop_user else None
        try:
            box = runtime.Box.create(who.uid, who.gid) if who else runtime.Box.create()
            if who is None:
                return cls(protections, who, box, runtime.this_interpreter())
            # In every mode with a uid of its own, also under bubblewrap (which does not mount them): a layer less
            # must not expose them. Before choosing the Python: a venv inside them is then mirrored.
            runtime.make_private(list(private))
            if protections.bwrap:
                return cls(protections, who, box, runtime.this_interpreter())
            return cls(protections, who, box, _interpreter_for(who))
        except BaseException:
            if who is not None:
                who.release()
            raise

    def close(self) -> None:
        if self.identity is not None:
            self.identity.release()
        self.box.remove()

    def scratch_overused(self, worker: _Worker | None = None) -> str | None:
        """Why the running call must stop, if the files it wrote (scratch folder, and as its own uid in the shared
        temporary folders) pass ``SCRATCH_MB``, ``cleanup.MAX_ENTRIES`` entries or ``cleanup.MAX_DEPTH`` levels;
        bubblewrap caps the bytes of its in-memory /tmp itself, which the grader sees through the worker's root."""
        if self.protections.bwrap:
            if worker is None or worker.host_pid is None:
                return None
            used = cleanup.usage(f"/proc/{worker.host_pid}/root/tmp")
            if used.too_deep:
                return f"made folders more than {cleanup.MAX_DEPTH} levels deep"
            if used.entries > cleanup.MAX_ENTRIES:
                return f"made more than {cleanup.MAX_ENTRIES} files and folders"
            return None
        used = cleanup.usage(str(self.box.scratch))
        if self.identity is not None:
            for path in identity.files_of(self.identity.uid):
                cleanup.usage(path, used)
        if used.too_deep:
            return f"made folders more than {cleanup.MAX_DEPTH} levels deep"
        if used.entries > cleanup.MAX_ENTRIES:
            return f"made more than {cleanup.MAX_ENTRIES} files and folders"
        if used.bytes > SCRATCH_MB << 20:
            return f"wrote more than {SCRATCH_MB} MB of files ({used.bytes >> 20} MB)"
        return None


_CHECKED: dict[str, runtime.Interpreter] = {}


def _interpreter_for(who: identity.Identity) -> runtime.Interpreter:
    """The Python the sandbox uid can start, checked once per process."""
    found = runtime.interpreter_for_others()
    if found.executable not in _CHECKED:
        runtime.verify(found, who.uid, who.gid)
        _CHECKED[found.executable] = found
    return found


@dataclass
class CallRecord:
    """What one call cost, for reports and benchmarks."""

    module: str
    func: str
    seconds: float
    ok: bool


class WorkerSession:
    """All calls for the submissions staged in its box; restarts the worker after a kill or a crash.

    ``private`` lists the grader's folders that the sandbox user must not read (default: the
    harness's project folder); they are made private when the worker runs as another uid.
    """

    def __init__(self, memory_mb: int, start_now: bool = False, private: tuple[Path, ...] = (HARNESS_ROOT,),
                 self_check: bool = False) -> None:
        from .portable import refuse_unsandboxed  # never grade others' code where only the portable path could run

        refuse_unsandboxed()
        self.memory_mb = memory_mb
        self.setup = _Setup.create(tuple(private), self_check)
        self.output = OutputBuffer()
        self._worker: _Worker | None = None
        self._live: tuple | None = None  # (folder, module) imported in the worker's current child
        self.folder: str | None = None  # the current submission's folder in the box
        self._ids = itertools.count(1)
        self._staged = itertools.count(1)
        self.broken: dict[str, str] = {}
        self.calls: list[CallRecord] = []
        self.restarts = 0
        self.budgets: dict[str, float] = {}
        self.spent: dict[str, float] = {}
        self._restart_credit: dict[str, float] = {}
        if start_now:
            self._launch()

    @property
    def protections(self) -> policy.Protections:
        return self.setup.protections

    def stage(self, located: submission.Located) -> str:
        """Write the found modules into a fresh folder of the box that only the worker's user may read; return its name."""
        folder = submission.stage(located, parent=self.setup.box.submissions, name=f"submission-{next(self._staged)}")
        self.setup.box.admit(folder)
        return folder.name

    def discard(self, folder: str) -> None:
        """Remove a staged submission folder."""
        submission.discard(self.setup.box.submissions / folder)

    def _launch(self) -> None:
        if self._worker is not None:
            self._worker.kill()
            self.restarts += 1
        self._worker = _Worker(self.setup, self.memory_mb, self.output)
        self._live = None
        self._ready = False

    def _ensure_ready(self) -> _Worker:
        if self._worker is None or self._worker.proc.poll() is not None or self._worker.killed_by_us:
            self._launch()
        if not self._ready:
            try:
                header, _ = self._worker.receive(time.monotonic() + STARTUP_SECONDS)
            except (TimeoutError, EOFError, wire.WireError) as exc:
                output = self.output.text()[-2000:]
                self._worker.kill()
                raise RuntimeError(f"the grading worker did not start ({type(exc).__name__}); output:\n{output}") from None
            if not header.get("ready"):
                raise RuntimeError("the grading worker sent an unexpected greeting")
            self._worker.inside_pid = header.get("pid")
            self._worker.host_pid = self._worker._host_pid()
            self._ready = True
        return self._worker

    def start(self) -> None:
        """Start the worker now (so torch loads while the grader prepares)."""
        if self._worker is None:
            self._launch()

    def set_budget(self, module: str, seconds: float) -> None:
        """Cap the total time of all calls into ``module``; a call that stops the worker counts as its full limit."""
        self.budgets[module] = seconds

    def settle_output(self) -> None:
        """Make sure what the worker printed so far has been collected."""
        if self._worker is not None:
            self._worker.settle_output()

    def switch(self, folder: str) -> None:
        """Serve the submission staged in ``submission/folder`` next, keeping the worker (and its torch)."""
        self.settle_output()
        self.folder = folder
        self.output.clear()
        self.broken, self.budgets, self.spent, self._restart_credit, self.calls = {}, {}, {}, {}, []

    def import_module(self, module: str, seconds: float) -> None:
        """Import ``module`` in the worker (in a fresh child); raise ``StudentCallError`` if that fails."""
        if module in self.broken:
            raise StudentCallError(self.broken[module], "import")
        worker = self._ensure_ready()
        if (self.folder, module) == self._live:
            return
        if self._live is not None:
            worker = self._reset()
        request = {"op": "import", "module": module} | ({"folder": self.folder} if self.folder else {})
        header = self._exchange(worker, request, [], seconds, f"importing {module}.py")
        self._live = (self.folder, module)  # even after a failed import the module's child stays until the next reset
        if header.get("fault"):
            raise SandboxFault(f"the sandbox could not start {module}.py: {header['fault']}")
        if not header.get("ok"):
            self.broken[module] = _import_failure(module, header.get("error", {}))
            raise StudentCallError(self.broken[module], "import")

    def fresh(self, module: str) -> None:
        """End ``module``'s process (and all it started, and what it wrote) so that its next call starts a fresh one."""
        if self._live == (self.folder, module) and self._worker is not None and not self._worker.killed_by_us:
            self._reset()

    def _reset(self) -> _Worker:
        """End the current module's child and whatever it started; replace the worker if that fails."""
        worker, rid = self._worker, next(self._ids)
        try:
            worker.send({"op": "reset", "id": rid}, [], time.monotonic() + RESET_SECONDS)
            header, _ = worker.receive(time.monotonic() + RESET_SECONDS)
            if header.get("reset") and header.get("id") == rid and not worker.leftovers():
                self._live = None
                return worker
        except (TimeoutError, EOFError, OSError, wire.WireError):
            pass
        self._launch()
        return self._ensure_ready()

    def call(self, module: str, func: str, args: tuple, kwargs: dict, seconds: float, shown: str) -> Any:
        """Run ``module.func(*args, **kwargs)`` in the worker within ``seconds``; return plain data."""
        budget = self.budgets.get(module)
        if budget is not None and self.spent.get(module, 0.0) >= budget:
            self.calls.append(CallRecord(module, func, 0.0, False))
            raise StudentCallError(f"{shown} was not run: the calls into {module}.py have used up their time budget of {budget:g} s "
                                   f"(a call that is stopped counts as the full {seconds:g} s).", "budget")
        try:
            self.import_module(module, seconds)
        except StudentCallError as exc:
            if exc.kind == "import" and module not in self.broken:
                self.broken[module] = str(exc)
            raise
        worker = self._ensure_ready()
        tree, blobs = wire.encode((tuple(args), dict(kwargs)), _grader_to_array)
        start = time.monotonic()
        try:
            header = self._exchange(worker, {"op": "call", "module": module, "func": func, "args": tree}, blobs, seconds, shown)
        except StudentCallError:
            self.calls.append(CallRecord(module, func, time.monotonic() - start, False))
            raise
        self.calls.append(CallRecord(module, func, time.monotonic() - start, bool(header.get("ok"))))
        overused = self.setup.scratch_overused(worker)  # also after every call: a thread may write between the watch's samples
        if overused:
            self._reset()
            raise StudentCallError(f"{shown} {overused} and was stopped.", "resource")
        if not header.get("ok"):
            raise StudentCallError(_call_failure(shown, header.get("error", {})), "raised")
        return header["value_decoded"]

    def _exchange(self, worker: _Worker, request: dict, blobs: list, seconds: float, shown: str) -> dict:
        request = dict(request, id=next(self._ids))
        start = time.monotonic()
        stopped = True
        try:
            worker.send(request, blobs, start + seconds)
            header, out_blobs = worker.receive(start + seconds, watch=lambda: self.setup.scratch_overused(worker))
            if header.get("id") != request["id"]:
                raise wire.WireError("a reply that does not answer this request")
            if any(k in header for k in ("reset", "interrupted", "ready")) or ("fault" in header and request["op"] != "import"):
                raise wire.WireError("a reply of a kind this request cannot have")
            if request["op"] == "call" and header.get("ok") and "value" not in header:
                raise wire.WireError("a reply without a value")
            if "unreadable" in header:  # the worker ended the module's process, which wrote on its reply pipe
                self._live = None
                raise _Unreadable(str(header["unreadable"])[:200])
            if "value" in header:
                header["value_decoded"] = wire.decode(header["value"], out_blobs, _GRADER_MAKE)
            stopped = False
            return header
        except TimeoutError:
            self._stop(worker)
            self._mark_if_import(request, f"{shown} did not finish within {seconds:g} s; it was stopped")
            raise StudentCallError(f"{shown} did not finish within the time limit of {seconds:g} s and was stopped.", "timeout") from None
        except _Overuse as exc:
            self._stop(worker)
            self._mark_if_import(request, f"{shown} {exc}; it was stopped")
            raise StudentCallError(f"{shown} {exc} and was stopped.", "resource") from None
        except (EOFError, BrokenPipeError, OSError):
            what = worker.exit_description()
            worker.kill()
            self._mark_if_import(request, f"the process {what} while {shown}")
            raise StudentCallError(f"The process running your code {what} during {shown}.", "crash") from None
        except (wire.WireError, KeyError, ValueError, TypeError) as exc:
            if not isinstance(exc, _Unreadable):  # else the worker already ended the module and is fit for the next
                worker.kill()
            self._mark_if_import(request, f"{shown} sent back something unreadable")
            raise StudentCallError(f"{shown} sent back something unreadable ({exc}).", "garbage") from None
        finally:
            self._charge(request, time.monotonic() - start, seconds, stopped)

    def _charge(self, request: dict, elapsed: float, seconds: float, stopped: bool) -> None:
        """Add a request's time to its module's budget: a stopped request counts as its full limit.

        That full limit also pays for the module's re-import in the fresh child that follows, up to what the
        stopped request left unused, so a few crashing calls do not cost the module's other calls their time.
        """
        module = request.get("module", "")
        if stopped:
            self.spent[module] = self.spent.get(module, 0.0) + max(elapsed, seconds)
            self._restart_credit[module] = max(seconds - elapsed, 0.0)
            return
        covered = min(self._restart_credit.pop(module, 0.0), elapsed) if request.get("op") == "import" else 0.0
        self.spent[module] = self.spent.get(module, 0.0) + elapsed - covered

    def _stop(self, worker: _Worker) -> None:
        """End the running call: only the module's child when the worker answers, else the whole worker."""
        self._live = None
        if not worker.interrupt():
            worker.kill()

    def _mark_if_import(self, request: dict, text: str) -> None:
        if request.get("op") == "import":
            self.broken[request["module"]] = f"{request['module']}.py could not be imported: {text}."

    def close(self) -> None:
        """Kill the worker and everything it started; free its uid and remove its box."""
        if self._worker is not None:
            self._worker.kill()
            self._worker = None
        self.setup.close()


def _import_failure(module: str, error: dict) -> str:
    detail = (error.get("traceback") or "").rstrip()
    head = f"{module}.py could not be imported: {error.get('type', 'Error')}: {error.get('message', '')}"
    return head + (f"\n{detail}" if detail else "")


def _call_failure(shown: str, error: dict) -> str:
    if error.get("type") == "NotImplementedError":
        return f"{shown} is not implemented yet (it raised NotImplementedError)."
    detail = (error.get("traceback") or "").rstrip()
    text = f"{shown} raised {error.get('type', 'an error')}: {error.get('message', '')}"
    return text + (f"\n{detail}" if detail else "")


def _grader_to_array(v: Any):
    torch = sys.modules.get("torch")  # the grader never imports torch; staff code that has it may still pass tensors
    if torch is not None and isinstance(v, torch.Tensor):
        return v.detach().cpu().numpy(), "tensor"
    if isinstance(v, np.ndarray):
        return v, "ndarray"
    if isinstance(v, np.generic):
        return np.asarray(v), "scalar"
    return None


_GRADER_MAKE = {
    "tensor": lambda a: a,
    "generator": lambda seed: wire.Seeded(seed),
    "named": lambda name: wire.Named(name),
}
