"""One live worker process as the grader sees it: its pipes, its wall clock, its leftovers, its end.

The grader writes requests and reads replies within deadlines (a worker that stops reading or
answering cannot block it), interrupts the module's child after a timeout, finds in /proc what the
sandbox still runs, and kills the whole worker when it must.
"""

from __future__ import annotations

import dataclasses
import os
import secrets
import select
import signal
import subprocess
import time
from typing import TYPE_CHECKING

import numpy as np

from ..settings import INTERRUPT_SECONDS, WATCH_SECONDS
from . import codec, identity, policy, zygote
from .cpu_group import CpuGroup
from .output import Drain, OutputBuffer
from .worker import cleanup, procfs, wire

if TYPE_CHECKING:
    from .setup import SandboxSetup



JOIN_SECONDS = 2.0  # how long a first process may keep a second thread (its huge-page collapse) before its cgroup


class UnreadableReply(wire.WireError):
    """The worker refused what the module's process wrote on its reply pipe and ended that process."""


class ModuleEnded(Exception):
    """The module's process ended during a request; the worker said how (``code``: a return code) and lives on."""

    def __init__(self, code: object) -> None:
        super().__init__(code)
        self.code = code


class CpuLimitReached(TimeoutError):
    """A call's processes used its CPU limit (``cpu``: the seconds they used), as the grader read it in /proc."""

    def __init__(self, cpu: float) -> None:
        super().__init__(cpu)
        self.cpu = cpu


class Overuse(Exception):
    """A call used more than it may of something other than time (the scratch folder's size)."""


def waited_seconds(header: dict) -> float:
    """The seconds a reply's ``waited`` says the module's process waited for a CPU (0 when it says nothing readable)."""
    waited = header.get("waited")
    return float(waited) if type(waited) in (int, float) and 0 <= waited < 1e6 else 0.0


class WorkerProcess:
    """One live worker process and its pipes."""

    def __init__(self, setup: SandboxSetup, memory_mb: int, output: OutputBuffer) -> None:
        self.setup = setup
        self.marker = secrets.token_hex(8)
        self.stopped_waited = 0.0  # what the first process said of the last call it stopped (``interrupt``)
        self.stopped_runnable = False  # and whether its main thread was then ready to run, waiting for a CPU
        self.cpu_mark: float | None = None  # ``tree_cpu`` when the last exchange ended: where the next one's CPU starts
        scratch = "/tmp" if setup.protections.bwrap else str(setup.box.scratch)
        env = dict(policy.worker_env(setup.interpreter, scratch), AUTOGRADER_WORKER=self.marker)
        req_r, req_w, rep_r, rep_w = _worker_pipes()
        forked = None
        if setup.forked:
            try:
                forked = self._fork(env, req_r, rep_w, memory_mb)
            except zygote.ZygoteUnavailable as exc:  # the machine's fault, never the student's: start afresh
                setup.fresh_reason = f"the zygote failed: {exc}"
                os.close(req_w)
                os.close(rep_r)
                req_r, req_w, rep_r, rep_w = _worker_pipes()
        self.proc: subprocess.Popen | zygote.ForkedWorker = forked or self._start(env, req_r, rep_w, memory_mb)
        self.to_worker, self.from_worker = req_w, rep_r
        os.set_blocking(self.to_worker, False)
        self.started_at = output.fed  # what it prints from here on is its own (the buffer's windows aside)
        self.drain = Drain(self.proc.stdout, output)
        self.killed_by_us = False
        self.inside_pid: int | None = None  # the worker's pid as it sees itself (its greeting says)
        self.host_pid: int | None = None  # the same process as the grader sees it
        self.standing: procfs.Standing | None = (
            None  # the first process's scheduling and limits before any student code
        )
        self.scratch_view: tuple | None = None  # its scratch folder then
        if isinstance(self.proc, zygote.ForkedWorker):
            self.host_pid = self.proc.pid  # the zygote says it: no search in /proc
        # Made now, joined by the first process once it says it is ready (before any student code): None where the
        # machine gives the grader no cgroup, and a call's CPU is then read in /proc.
        self.cpu_group = CpuGroup.create(self.marker)

    def _start(self, env: dict[str, str], req_r: int, rep_w: int, memory_mb: int) -> subprocess.Popen:
        """A fresh Python that imports torch itself (inside bubblewrap where it runs)."""
        arguments = self._arguments(memory_mb, req_r, rep_w)
        cmd = policy.worker_command(self.setup.protections, self.setup.interpreter, self.setup.box, arguments)
        try:
            return subprocess.Popen(
                cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                pass_fds=(req_r, rep_w), env=env, start_new_session=True, cwd="/",
            )
        finally:
            os.close(req_r)
            os.close(rep_w)

    def _fork(self, env: dict[str, str], req_r: int, rep_w: int, memory_mb: int) -> zygote.ForkedWorker:
        """A worker forked from the zygote, which joins bubblewrap's namespaces where bubblewrap runs."""
        setup, protections = self.setup, self.setup.protections
        argv = self._arguments(memory_mb, *zygote.WORKER_FDS)
        code, start = policy.worker_folders(protections, setup.box)
        bwrap = protections.bwrap is not None
        return zygote.fork_worker(
            setup.interpreter, dict(env, PWD=start) if bwrap else env, argv[1:], start, code, (req_r, rep_w),
            policy.holder_command(protections, setup.interpreter, setup.box) if bwrap else None,
            list(policy.root_capabilities().values()) if bwrap else None,
        )

    def _arguments(self, memory_mb: int, fd_in: int, fd_out: int) -> list[str]:
        """``main.py`` and its arguments for this session's worker, reading its requests on ``fd_in``."""
        who = self.setup.identity
        return policy.worker_arguments(self.setup.protections, self.setup.interpreter, self.setup.box, memory_mb,
                                       fd_in, fd_out, uid=who.uid if who else None, gid=who.gid if who else None)

    def settle_output(self, timeout: float = 1.0) -> None:
        """Wait (briefly) until everything the worker printed so far is in the output buffer."""
        end = time.monotonic() + timeout
        while time.monotonic() < end and self.drain.is_alive() and not self.drain.caught_up():
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
            buffer, got = (
                bytearray(),
                0,
            )  # grown as bytes arrive: a length that is promised costs nothing until it is sent
            while got < n:
                if len(buffer) == got:
                    buffer.extend(bytes(min(n - got, max(got, 1 << 20))))
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError
                if not select.select([fd], [], [], min(remaining, WATCH_SECONDS))[0]:
                    reason = watch() if watch is not None else None
                    if reason:
                        raise Overuse(reason)
                    continue
                got = wire.read_into(fd, buffer, got)
            return buffer

        return codec.read_reply(self.from_worker, read_exact, wire.MAX_REPLY_BYTES)

    def interrupt(self) -> bool:
        """Kill only the module's child after a timeout (the worker forks a fresh one); False if that failed. The first
        process says how long the child waited for a CPU during the call: ``stopped_waited``."""
        self.stopped_waited, self.stopped_runnable = 0.0, False
        pid = self._host_pid()
        if pid is None:
            return False
        try:
            os.kill(pid, signal.SIGUSR1)
            deadline = time.monotonic() + INTERRUPT_SECONDS
            while True:  # skip what the stopped call may still have sent
                header, _ = self.receive(deadline, watch=self.first_process_stopped)
                if header.get("interrupted"):
                    self.stopped_waited = waited_seconds(header)
                    self.stopped_runnable = header.get("runnable") is True
                    return True
        except (TimeoutError, EOFError, OSError, wire.WireError, Overuse):
            return False

    def _host_pid(self) -> int | None:
        """The worker's first process as the grader sees it (inside bubblewrap it has another pid)."""
        if self.host_pid is not None:
            return self.host_pid if self.proc.poll() is None else None
        if self.inside_pid is None or self.proc.poll() is not None:
            return None
        if self.proc.pid == self.inside_pid:
            return (
                self.proc.pid
            )  # our own child, not yet reaped: its pid cannot have been reused (and, not dumpable, its
            # environment cannot be read by the same user)
        own = procfs.status("self")
        depth = len(own.nspids) + 1 if own is not None and own.nspids else None
        for pid in _descendants(_process_table(), self.proc.pid):
            status = procfs.status(pid)
            if status is None or not status.nspids or status.nspids[-1] != self.inside_pid:
                continue
            environ = procfs.environ(pid)
            if environ is not None and f"AUTOGRADER_WORKER={self.marker}".encode() in environ:
                return pid
            # Not dumpable, so its environment is closed to a grader that is not root: one pid namespace below ours,
            # under our own bubblewrap, with the worker's pid there, is the first process (a module's nested namespace
            # is deeper).
            if environ is None and len(status.nspids) == depth:
                return pid
        return None

    def tree_cpu(self) -> float | None:
        """CPU seconds of everything the worker's first process started (each test's process, its threads and children,
        orphans the first process adopted; running, ended or reaped), never the first process's own, read without
        asking the worker: in the worker's cgroup where it has one, else in /proc. A call's CPU time is the rise of it
        while the call runs. None where neither can say."""
        first = self.host_pid
        if self.cpu_group is not None and first is not None:
            # The group holds the first process's main thread (whose own time is taken off: both figures move at the
            # same moments) and every process it forked; no other thread of the first process.
            group, own = self.cpu_group.cpu_seconds(), procfs.leader_cpu_seconds(first)
            if group is not None and own is not None:
                return group - own
        read = (
            procfs.cpu_seconds(first, own_precisely=False) if first is not None else None
        )  # its own time is not counted
        if read is None:
            return None
        below = _tree(first)
        if below is None:
            below = _descendants(_process_table(), first)
        total = read[1]
        for pid in below:
            found = procfs.cpu_seconds(pid)
            if found is not None:
                total += found[0] + found[1]
        return total

    def note_start(self) -> None:
        """Remember, before any student code runs, what every test's process must find again: the first process's
        scheduling and limits, and its scratch folder; and move the first process into the worker's cgroup, where every
        test's process is then born."""
        if self.cpu_group is not None and not self._join_cpu_group():
            self.cpu_group.remove()
            self.cpu_group = None
        if self.host_pid is not None:
            self.standing = procfs.standing(self.host_pid)
        self.scratch_view = self.setup.scratch_view(self.host_pid)

    def _join_cpu_group(self) -> bool:
        """Move the first process's main thread into the worker's cgroup. Where a cgroup takes whole processes only
        (v2), first wait (briefly) until that thread is the process's only one: another one's time would be counted
        and not taken off."""
        first, group = self.host_pid, self.cpu_group
        if first is None or group is None:
            return False
        if group.version != 1:
            end = time.monotonic() + JOIN_SECONDS
            while (status := procfs.status(first)) is None or status.threads != 1:
                if status is None or time.monotonic() > end:
                    return False
                time.sleep(0.01)
        return group.adopt(first)

    def first_process_stopped(self) -> str | None:
        """Why the worker cannot answer (its first process was stopped, SIGSTOP by a module say), or None."""
        found = procfs.standing(self.host_pid) if self.host_pid is not None else None
        if found is None:
            return "the worker's first process is gone"
        return "the worker's first process was stopped" if found.state in ("T", "t") else None

    def unrestored(self) -> str | None:
        """What of the last test is still there after the worker's reset, found in /proc and on disk without asking the
        worker: a leftover process, a change to the first process's scheduling or limits (which every later test would
        inherit), a scratch folder that is not as it was. None when the next test starts as the first did."""
        if self.leftovers():
            return "processes of the last test are still running"
        now = procfs.standing(self.host_pid) if self.host_pid is not None else None
        if now is not None and now.state in ("T", "t"):
            return "the worker's first process was stopped"
        if (
            self.standing is None
            or now is None
            or dataclasses.replace(now, state="") != dataclasses.replace(self.standing, state="")
        ):
            return "the worker's first process changed its scheduling or limits"
        if self.setup.scratch_view(self.host_pid) != self.scratch_view:
            return "the scratch folder is not as it was"
        # student code may chmod the box's files it owns (the grader's own user): put back
        self.setup.box.restore_modes()
        return None

    def leftovers(self) -> list[int]:
        """Processes the sandbox still runs besides the worker's first process, found in /proc (never by asking the
        worker): its descendants (orphans come back to it, a subreaper) and, with a uid of its own, every process of
        that uid."""
        first = self.host_pid
        if first is None or procfs.stat(first) is None:
            return [0]  # the first process itself is gone or cannot be seen: nothing can be confirmed
        found = _tree(first)
        if found is None:  # the kernel does not list children: every process's parent decides
            table = _process_table()
            if first not in table:
                return [0]
            found = _descendants(table, first)
        if self.setup.identity is not None:
            found |= {pid for pid in procfs.pids() if procfs.owner(pid) == self.setup.identity.uid}
        found.discard(first)
        return sorted(pid for pid in found if (info := procfs.stat(pid)) is not None and info.state != "Z")

    def kill(self) -> None:
        """SIGKILL the worker's whole session and every process of its uid; bubblewrap's PID namespace takes the
        rest."""
        self.killed_by_us = True
        if isinstance(self.proc, zygote.ForkedWorker):
            self.proc.kill_all()
        else:
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
            self.setup.box.reset_scratch()
        self.setup.box.restore_modes()
        for fd in (self.to_worker, self.from_worker):
            try:
                os.close(fd)
            except OSError:
                pass
        # What it printed before it was killed belongs to the test that was running: take it before the next begins.
        self.settle_output(timeout=5)
        self.drain.join(timeout=2)
        if isinstance(self.proc, zygote.ForkedWorker):
            self.proc.close()
        if self.cpu_group is not None:
            self.cpu_group.remove()

    def exit_description(self) -> str:
        code = self.proc.poll()
        if code is None:
            try:
                code = self.proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                return "stopped answering"
        return how_it_ended(code)


def _worker_pipes() -> tuple[int, int, int, int]:
    """The request pipe (read, write) and the reply pipe (read, write), widened where the worker writes."""
    req_r, req_w = os.pipe()
    rep_r, rep_w = os.pipe()
    for fd in (req_w, rep_w):
        wire.widen_pipe(fd)
    return req_r, req_w, rep_r, rep_w


def how_it_ended(code: int) -> str:
    """How a process with this return code (negative: the signal that killed it) ended, as the student reads it."""
    if code == wire.WORKER_BROKEN:
        return "stopped because the module broke the grader's code in its process (by replacing Python built-ins, say)"
    if code < 0 or code > 128:
        sig = -code if code < 0 else code - 128
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        hint = (
            " (often: the memory limit was exceeded)" if sig in (signal.SIGKILL, signal.SIGSEGV, signal.SIGABRT) else ""
        )
        return f"was killed by signal {name}{hint}"
    return f"exited with status {code} (sys.exit or os._exit in student code?)"


def _process_table() -> dict[int, tuple[int, int, bool]]:
    """pid -> (parent pid, uid, zombie) of every process this grader can see (the uid is the owner of its /proc folder:
    its effective uid, which a sandbox uid cannot change)."""
    table = {}
    for pid in procfs.pids():
        uid, info = procfs.owner(pid), procfs.stat(pid)
        if uid is not None and info is not None:
            table[pid] = (info.ppid, uid, info.state == "Z")
    return table


def _descendants(table: dict[int, tuple[int, int, bool]], first: int) -> set[int]:
    """The processes of ``table`` below ``first``: its children, theirs, and so on."""
    children: dict[int, list[int]] = {}
    for pid, (ppid, _uid, _zombie) in table.items():
        children.setdefault(ppid, []).append(pid)
    found, todo = set(), list(children.get(first, []))
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo += children.get(pid, [])
    return found


def _tree(first: int) -> set[int] | None:
    """The processes below ``first`` (its children, theirs, and so on) as the kernel lists each one's children: reads of
    the few processes of the tree, not of every process on the machine. None where a list cannot be read."""
    found, todo = set(), [first]
    while todo:
        children = procfs.children(todo.pop())
        if children is None:
            return None
        for pid in children:
            if pid not in found and pid != first:
                found.add(pid)
                todo.append(pid)
    return found


def _carries_marker(pid: int, marker: str) -> bool:
    """Whether ``pid`` started with the environment of the worker whose marker is ``marker``."""
    return f"AUTOGRADER_WORKER={marker}".encode() in (procfs.environ(pid) or [])


def _sweep(marker: str) -> None:
    """Kill processes that left the worker's session but still carry its environment marker."""
    for pid in procfs.pids():
        if _carries_marker(pid, marker):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                continue
