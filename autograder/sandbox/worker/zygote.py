"""The zygote: one process per machine, grader's user and Python, that imports torch once and forks each worker.

Started by ``autograder.sandbox.zygote`` (never by student code) as ``python -I -B zygote.py --socket PATH``. It imports
what every worker's first process imports (torch, the worker's modules, the layers' libraries), then listens on a Unix
socket in a folder only its user can open, and serves only peers of its own uid; no other process of that uid may read
its memory (it is not dumpable). A grader connects once per worker and sends what today's command line would say (the
worker's arguments, its environment and folder, the pipes it talks on, and under bubblewrap the namespaces of a holder
that bubblewrap made). The zygote forks; the child joins those namespaces, keeps only the capabilities bubblewrap would
have left it, starts a session of its own, takes the pipes as its descriptors and nothing else of the zygote's, and from
there is a worker like any other: it drops to the sandbox uid and applies every layer itself (``main.enter_sandbox``,
``FirstProcess.serve``). The grader reads the worker's pid and a pidfd from the reply, and its return code on the same
connection when it ends. A grader whose connection closes before its worker ended takes the worker with it.

The zygote never imports student code, never reads a submission and keeps nothing of a request after the fork. It
exits when it has had no worker and no grader for ``--idle`` seconds.
"""

from __future__ import annotations

import argparse
import ctypes
import fcntl
import gc
import json
import os
import select
import signal
import socket
import struct
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import confine  # noqa: E402 - the worker's own code, beside this file
import main  # noqa: E402
import procfs  # noqa: E402

MAX_REQUEST = 1 << 16
MAX_FDS = 16
NAMESPACES = {  # the name in /proc/PID/ns and its clone flag; the PID namespace is the zygote's to enter (see fork)
    "mnt": 0x00020000,
    "net": 0x40000000,
    "ipc": 0x08000000,
    "uts": 0x04000000,
    "cgroup": 0x02000000,
}
CLONE_NEWPID = 0x20000000
PR_SET_DUMPABLE = 4
PR_CAPBSET_READ = 23
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38


def _libc() -> ctypes.CDLL:
    return main._libc()


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def setns(fd: int, nstype: int) -> None:
    _check(_libc().setns(fd, nstype), "setns")


def keep_only_capabilities(keep: list[int]) -> None:
    """Leave this process only ``keep`` (effective, permitted, inheritable; none in the bounding set beyond them) and
    no way to gain more by exec: what bubblewrap's ``--cap-drop ALL --cap-add ...`` leaves a worker."""
    libc = _libc()
    _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    last = int(open("/proc/sys/kernel/cap_last_cap").read())
    for cap in range(last + 1):
        if cap not in keep and libc.prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1:
            _check(libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0), "bounding set")
    if not confine.set_capabilities(sum(1 << cap for cap in keep if libc.prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1)):
        raise OSError(ctypes.get_errno(), "capset")


class Zygote:
    """The listening socket, its graders' connections and the workers it forked for them."""

    def __init__(self, path: str, idle: float) -> None:
        self.path, self.idle = path, idle
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.listener.bind(path)
        self.listener.listen(64)
        self.identity = os.stat(path).st_ino
        self.waiting: dict[int, socket.socket] = {}  # connection fd -> a grader that has not asked yet
        self.workers: dict[int, tuple[int, socket.socket]] = {}  # pidfd -> (pid, its grader's connection)
        self.own_pid_ns = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
        self.quiet_since = time.monotonic()

    def serve(self) -> None:
        while True:
            if not self.waiting and not self.workers:
                if time.monotonic() - self.quiet_since > self.idle:
                    self.leave()
                    return
            else:
                self.quiet_since = time.monotonic()
            watched = [self.listener.fileno(), *self.waiting, *self.workers,
                       *(conn.fileno() for _pid, conn in self.workers.values())]
            ready = select.select(watched, [], [], 1.0)[0]
            self.sweep()
            for fd in ready:
                if fd == self.listener.fileno():
                    self.accept()
                elif fd in self.waiting:
                    self.answer(self.waiting.pop(fd))
                elif fd in self.workers:
                    self.reap(fd)
                else:
                    self.grader_left(fd)

    def accept(self) -> None:
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        _pid, uid, _gid = struct.unpack("3i", creds)
        if uid != os.getuid():  # the folder keeps others out; this is the second lock
            conn.close()
            return
        self.waiting[conn.fileno()] = conn

    def answer(self, conn: socket.socket) -> None:
        fds: list[int] = []
        try:
            conn.settimeout(10)
            data, fds, _flags, _addr = socket.recv_fds(conn, MAX_REQUEST, MAX_FDS)
            if not data:  # a grader that only made sure this zygote runs
                conn.close()
                return
            request = json.loads(data)
            pid, pidfd = self.fork(request, fds)
            socket.send_fds(conn, [json.dumps({"pid": pid}).encode()], [pidfd])
            conn.setblocking(False)
            self.workers[pidfd] = (pid, conn)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            try:
                conn.send(json.dumps({"error": f"{type(exc).__name__}: {exc}"[:500]}).encode())
            except OSError:
                pass
            conn.close()
        finally:
            for fd in fds:
                os.close(fd)

    def fork(self, request: dict, fds: list[int]) -> tuple[int, int]:
        """Fork one worker for ``request``; its pid and a pidfd."""
        names = request["fds"]  # what each received descriptor is
        if len(names) != len(fds):
            raise ValueError("the request names other descriptors than it sent")
        given = dict(zip(names, fds))
        pid_ns = given.get("ns:pid")
        if pid_ns is not None:
            setns(pid_ns, CLONE_NEWPID)  # the zygote stays where it is; only its next child is born there
        try:
            pid = os.fork()
        except OSError:
            if pid_ns is not None:
                setns(self.own_pid_ns, CLONE_NEWPID)
            raise
        if pid == 0:
            try:
                self.become_worker(request, given)
            finally:
                os._exit(main.WORKER_BROKEN)
        if pid_ns is not None:
            setns(self.own_pid_ns, CLONE_NEWPID)
        return pid, os.pidfd_open(pid)

    def become_worker(self, request: dict, given: dict[str, int]) -> None:
        """In the child: join, shed the zygote, and run the worker's first process with ``request``'s arguments."""
        main._prctl(PR_SET_DUMPABLE, 1)  # as a fresh Python: its /proc files are its user's until it confines itself
        for name, flag in NAMESPACES.items():
            if f"ns:{name}" in given:
                setns(given[f"ns:{name}"], flag)
        os.chdir(request["cwd"])
        if request.get("keep_caps") is not None:
            keep_only_capabilities([int(cap) for cap in request["keep_caps"]])
        os.setsid()
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # as a fresh Python: a closed pipe is an error, not a death
        fd_in, fd_out = int(request["fd_in"]), int(request["fd_out"])
        if not 2 < fd_in < fd_out < 100:
            raise ValueError("the worker's pipes must be fds 3 to 99")
        null = os.open("/dev/null", os.O_RDWR)
        moved = {name: fcntl.fcntl(fd, fcntl.F_DUPFD, 100) for name, fd in
                 (("stdin", null), ("stdout", given["stdout"]), ("in", given["in"]), ("out", given["out"]))}
        for name, target in (("stdin", 0), ("stdout", 1), ("stdout", 2), ("in", fd_in), ("out", fd_out)):
            os.dup2(moved[name], target)
        for sock in (self.listener, *self.waiting.values(), *(conn for _pid, conn in self.workers.values())):
            sock.detach()  # their numbers are closed below: no object of the zygote's may close a reused one later
        self.waiting.clear()  # nothing of another worker stays reachable from this one's frames
        self.workers.clear()
        os.closerange(3, fd_in)
        os.closerange(fd_in + 1, fd_out)
        os.closerange(fd_out + 1, 1 << 16)
        os.environ.clear()
        os.environ.update({str(k): str(v) for k, v in request["env"].items()})
        # What the imports cached of the zygote's environment is found again from the worker's, as a fresh one finds it.
        tempfile.tempdir = None
        tempfile.gettempdir()
        here = os.path.dirname(os.path.abspath(__file__))
        sys.path[:] = [request["worker_dir"] if entry == here else entry for entry in sys.path]
        sys.argv = ["main.py", *request["argv"]]
        main.COLLAPSE = False
        main.run(main.parse_args(request["argv"]))

    def reap(self, pidfd: int) -> None:
        pid, conn = self.workers.pop(pidfd)
        os.close(pidfd)
        try:
            _, status = os.waitpid(pid, 0)
            code = os.waitstatus_to_exitcode(status)
        except ChildProcessError:
            code = None
        try:
            conn.send(json.dumps({"returncode": code}).encode())
        except OSError:
            pass
        conn.close()

    def sweep(self) -> None:
        """Kill and reap the orphans of workers that ended. The zygote is their subreaper: what a worker's processes
        left when it ended (its grader killed with it, say) comes here from any session or group, and outlives it by a
        second at most. The zygote forks only workers, so every other child of its is such an orphan."""
        ours = {pid for pid, _conn in self.workers.values()}
        found = procfs.children("self")
        if found is None:
            me = os.getpid()
            found = [pid for pid in procfs.pids() if (info := procfs.stat(pid)) is not None and info.ppid == me]
        for pid in found:
            if pid in ours:
                continue
            try:
                os.kill(pid, signal.SIGKILL)  # a child not yet reaped: its pid is no other process's
                os.waitpid(pid, os.WNOHANG)  # the next sweep reaps it if it has not ended yet
            except OSError:
                pass

    def grader_left(self, fd: int) -> None:
        """A grader's connection closed (or it sent more than it should) while its worker lives: the worker ends."""
        for pidfd, (pid, conn) in list(self.workers.items()):
            if conn.fileno() != fd:
                continue
            try:
                if conn.recv(1, socket.MSG_PEEK):
                    conn.recv(1 << 12)  # a grader says nothing after its request; drop it
                    continue
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                pass
            try:
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass

    def leave(self) -> None:
        """Remove the socket if it is still this zygote's (a newer one may have replaced it), and an empty log."""
        try:
            if os.stat(self.path).st_ino == self.identity:
                os.unlink(self.path)
            log = os.path.splitext(self.path)[0] + ".log"
            if os.stat(log).st_size == 0:
                os.unlink(log)
        except OSError:
            pass


def prepare() -> None:
    """What every worker's first process would import and set up itself, done once here."""
    import cleanup  # noqa: F401
    import confine  # noqa: F401
    import torch

    for name in ("pyseccomp", "landlockpy"):
        try:
            __import__(name)
        except ImportError:
            pass
    torch.set_num_threads(1)
    torch.ones(1).add(1)
    gc.freeze()
    main.collapse_into_huge_pages()


def run() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--socket", required=True)
    parser.add_argument("--ready-fd", type=int, required=True)
    parser.add_argument("--idle", type=float, default=20.0)
    args = parser.parse_args()
    if os.fork() > 0:  # the grader that started it waits for this parent only: the zygote is no process's child
        os._exit(0)
    # No process of its uid without CAP_SYS_PTRACE reads its memory, descriptors or environment, even where a layer is
    # missing (a grader that is not root shares its uid with its workers); a test's process is made dumpable again.
    main._prctl(PR_SET_DUMPABLE, 0)
    main._prctl(main.PR_SET_CHILD_SUBREAPER, 1)  # orphans of its workers come here, not to init (``Zygote.sweep``)
    prepare()
    zygote = Zygote(args.socket, args.idle)
    os.write(args.ready_fd, b"ready")
    os.close(args.ready_fd)
    zygote.serve()


if __name__ == "__main__":
    run()
