"""Workers forked from a zygote: torch imported once per machine, not once per worker.

The zygote (``worker/zygote.py``) is a Python of the grader's own user that imported what a worker's first process
imports, and nothing of any submission. Staff runs (``grade``, ``grade-all``, ``validate``, the suite) ask it for each
worker over a Unix socket in a folder only their user can open (``unusable`` says where they may: a root grader's
always, another user's only where seccomp and Landlock keep student code from it); the first grader to need one starts
it, and it leaves when it has had nothing to do for ``ZYGOTE_IDLE_SECONDS``. A zygote serves only graders that would
have started the same worker: the same Python and environment, the same worker code, the same cgroup, namespaces and
limits.

Under bubblewrap the grader starts bubblewrap as today, but around a holder (a Python that waits on its stdin)
instead of the worker, and passes the holder's namespaces to the zygote, whose child joins them: the same filesystem
view, network, PID namespace (the holder is its init), with bubblewrap's capabilities. From there the child is a
worker like one the grader started: it drops to the sandbox uid and applies every layer itself.

What the grader holds of a forked worker (``ForkedWorker``) answers as ``subprocess.Popen`` does (``pid``, ``poll``,
``wait``, ``stdout``); the return code comes from the zygote, the worker's parent, on the worker's own connection.
"""

from __future__ import annotations

import hashlib
import json
import os
import select
import signal
import socket
import stat
import subprocess
import threading
from pathlib import Path
from typing import BinaryIO

from .. import settings
from .errors import SandboxFault
from .policy import Protections, worker_env
from .runtime import WORKER_DIR, WORKER_FILES, Interpreter

ZYGOTE_FOLDER = Path("/run/autograder-zygote")
START_SECONDS = 120  # a zygote imports torch: seconds on a loaded machine
HOLDER_SECONDS = 30
WORKER_FDS = (3, 4)  # where the worker finds its request and reply pipes
NAMESPACES = ("pid", "mnt", "net", "ipc", "uts", "cgroup")
SOCKET_PATH_ROOM = 60  # a Unix socket's path holds 107 bytes: the folder's, "/autograder-zygote/" and a key's name
LANDLOCK_SCOPES = 6  # Landlock's first ABI that keeps a process's signals and abstract sockets inside its domain


class ZygoteUnavailable(SandboxFault):
    """The zygote could not be started or reached: the grader's machine, never the student."""


def unusable(self_check: bool, protections: Protections) -> str | None:
    """Why a worker cannot come from the zygote here, or None when it can.

    A grader that is not root shares its uid with its workers and their zygote. Its workers are forked only where the
    layers keep student code from that zygote as they keep it from the grader: seccomp refuses every socket (so none
    can reach the zygote's) and Landlock keeps its signals inside its domain (the zygote is not dumpable either). Under
    bubblewrap such a grader would have to join bubblewrap's user namespace first, and its PID namespace needs a
    second fork: those workers start afresh."""
    if settings.AUTOGRADER_ZYGOTE.value() == "0":
        return "AUTOGRADER_ZYGOTE=0"
    if self_check:
        return "a student's own check leaves no process behind"
    if not protections.is_root:
        if protections.bwrap:
            return "the grader is not root and runs bubblewrap, whose user namespace a forked worker cannot join"
        if not protections.seccomp or protections.landlock < LANDLOCK_SCOPES:
            return (f"the grader is not root, and without both seccomp and Landlock ABI {LANDLOCK_SCOPES}+ nothing "
                    "keeps student code of its own uid from a zygote")
    if not (hasattr(os, "pidfd_open") and hasattr(socket, "send_fds") and hasattr(signal, "pidfd_send_signal")):
        return "this Python or kernel has no pidfds"
    return None


def describe() -> str:
    return "forked from a zygote that imported torch once (it holds no submission's code or data)"


class ForkedWorker:
    """A worker the zygote forked, as the grader holds it: a ``subprocess.Popen`` for what the grader asks of one."""

    def __init__(self, conn: socket.socket, pid: int, pidfd: int, stdout: BinaryIO,
                 holder: subprocess.Popen | None) -> None:
        self.conn, self.pid, self.pidfd, self.stdout, self.holder = conn, pid, pidfd, stdout, holder
        self.returncode: int | None = None

    def poll(self) -> int | None:
        return self.wait(0) if self.returncode is None and self._ended(0) else self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            if not self._ended(timeout):
                raise subprocess.TimeoutExpired("worker", timeout or 0)
            self._read_end()
        return self.returncode

    def _ended(self, timeout: float | None) -> bool:
        """Whether the zygote reported the end on the worker's connection, or (once that is closed) the pidfd says it
        ended; once both are closed, the worker counts as ended."""
        watched = self.conn.fileno() if self.conn.fileno() >= 0 else self.pidfd
        return watched < 0 or bool(select.select([watched], [], [], timeout)[0])

    def _read_end(self) -> None:
        try:
            message = self.conn.recv(4096) if self.conn.fileno() >= 0 else b""
            code = json.loads(message)["returncode"] if message else None
        except (OSError, ValueError, KeyError):
            code = None
        # None: the zygote died first, and its death signal killed the worker
        self.returncode = int(code) if isinstance(code, int) else -signal.SIGKILL

    def kill_all(self) -> None:
        """SIGKILL the worker, its process group while it lives, and bubblewrap's holder (its PID namespace's init:
        the namespace and all in it go with it)."""
        try:
            signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
        except OSError:
            pass
        if self.poll() is None:  # not reaped yet, so its pid cannot be another process's group
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except OSError:
                pass
        if self.holder is not None:
            _end_holder(self.holder)

    def close(self) -> None:
        self.conn.close()
        if self.pidfd >= 0:
            os.close(self.pidfd)
            self.pidfd = -1


def start_soon(interpreter: Interpreter) -> None:
    """Start the zygote for ``interpreter`` on a thread, if none runs: it imports torch while the grader prepares."""

    def ensure() -> None:
        try:
            _connect(interpreter).close()
        except (SandboxFault, OSError):
            pass  # the fork that needs it says why

    threading.Thread(target=ensure, name="zygote-start", daemon=True).start()


def fork_worker(interpreter: Interpreter, env: dict[str, str], argv: list[str], cwd: str, worker_dir: str,
                pipes: tuple[int, int], holder_command: list[str] | None, keep_caps: list[int] | None) -> ForkedWorker:
    """A worker forked by the zygote for ``interpreter`` that runs ``main.py`` with ``argv`` (``--fd-in``/``--fd-out``
    being ``WORKER_FDS``) on ``pipes`` (its ends of the request and reply pipes, closed here); under bubblewrap it
    joins the namespaces of a holder started with ``holder_command``."""
    holder, namespaces = None, []
    out_r, out_w = os.pipe()
    try:
        if holder_command is not None:
            holder, namespaces = _start_holder(holder_command)
        conn = _connect(interpreter)
        names = ["in", "out", "stdout", *(f"ns:{name}" for name, _fd in namespaces)]
        request = {"argv": argv, "env": env, "cwd": cwd, "worker_dir": worker_dir, "fd_in": WORKER_FDS[0],
                   "fd_out": WORKER_FDS[1], "keep_caps": keep_caps, "fds": names}
        try:
            socket.send_fds(conn, [json.dumps(request).encode()], [*pipes, out_w, *(fd for _n, fd in namespaces)])
            conn.settimeout(START_SECONDS)
            data, fds, _flags, _addr = socket.recv_fds(conn, 4096, 1)
            reply = json.loads(data) if data else {"error": "the zygote closed the connection"}
        except (OSError, ValueError) as exc:
            conn.close()
            raise ZygoteUnavailable(f"the zygote did not answer: {exc}") from None
        if "pid" not in reply or len(fds) != 1:
            conn.close()
            for fd in fds:
                os.close(fd)
            raise ZygoteUnavailable(f"the zygote could not fork a worker: {reply.get('error', reply)}")
        conn.setblocking(True)
        conn.settimeout(None)
        stdout = os.fdopen(out_r, "rb")
        out_r = -1
        return ForkedWorker(conn, int(reply["pid"]), fds[0], stdout, holder)
    except BaseException:
        if holder is not None:
            _end_holder(holder)
        raise
    finally:
        for fd in (*pipes, out_w, *(fd for _n, fd in namespaces), *([out_r] if out_r >= 0 else [])):
            try:
                os.close(fd)
            except OSError:
                pass


def _start_holder(command: list[str]) -> tuple[subprocess.Popen, list[tuple[str, int]]]:
    """Start bubblewrap around a holder that waits on its stdin; the holder and its namespaces, opened."""
    info_r, info_w = os.pipe()
    holder = subprocess.Popen(
        [command[0], "--info-fd", str(info_w), *command[1:]], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, pass_fds=(info_w,), start_new_session=True, cwd="/",
    )
    os.close(info_w)
    try:
        with os.fdopen(info_r, "rb") as info:
            child = json.loads(info.read() or b"{}").get("child-pid")
        if not select.select([holder.stdout], [], [], HOLDER_SECONDS)[0] or holder.stdout.read(1) != b".":
            raise ZygoteUnavailable(f"bubblewrap did not start the worker's holder: {_holder_error(holder)}")
        if not isinstance(child, int):
            raise ZygoteUnavailable("bubblewrap did not say where the worker's holder runs")
        opened: list[tuple[str, int]] = []
        try:
            for name in NAMESPACES:
                path = f"/proc/{child}/ns/{name}"
                if name == "cgroup" and os.stat(path).st_ino == os.stat("/proc/self/ns/cgroup").st_ino:
                    continue  # bubblewrap made none (--unshare-cgroup-try)
                opened.append((name, os.open(path, os.O_RDONLY | os.O_CLOEXEC)))
            if holder.poll() is not None:  # the namespaces opened are of a process that is still the holder
                raise ZygoteUnavailable(f"the worker's holder ended: {_holder_error(holder)}")
        except BaseException:
            for _name, fd in opened:
                os.close(fd)
            raise
        return holder, opened
    except BaseException:
        _end_holder(holder)
        raise


def _holder_error(holder: subprocess.Popen) -> str:
    if holder.poll() is None:
        return "it did not answer"
    return (holder.stderr.read() or b"").decode(errors="replace")[-500:] or f"it exited with {holder.returncode}"


def _end_holder(holder: subprocess.Popen) -> None:
    try:
        os.killpg(holder.pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        holder.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
    for stream in (holder.stdin, holder.stdout, holder.stderr):
        try:
            stream.close()
        except (OSError, AttributeError):
            pass


def folder() -> Path:
    """Where this user's zygotes listen: root's ``ZYGOTE_FOLDER``; another user's runtime folder where it has one, or
    else a folder of its own in /tmp (whatever $TMPDIR says: one zygote per user, and a short path, as a socket's
    must be)."""
    if os.geteuid() == 0:
        return ZYGOTE_FOLDER
    runtime_dir = os.environ.get("XDG_RUNTIME_DIR", "")
    if runtime_dir.startswith("/") and len(runtime_dir) < SOCKET_PATH_ROOM and os.path.isdir(runtime_dir):
        return Path(runtime_dir) / "autograder-zygote"
    return Path(f"/tmp/autograder-zygote-{os.geteuid()}")


def _folder() -> Path:
    """The zygotes' folder, made if need be: this user's, closed to everyone else (a socket there is a zygote of this
    user's, and only this user may use it)."""
    path = folder()
    try:
        path.mkdir(mode=0o700, exist_ok=True)
        info = path.lstat()
    except OSError as exc:
        raise ZygoteUnavailable(f"cannot make {path}: {exc}") from None
    if info.st_uid != os.geteuid() or info.st_mode & 0o077 or not stat.S_ISDIR(info.st_mode):
        raise ZygoteUnavailable(f"{path} is not a private folder of this user; remove it")
    return path


def key(interpreter: Interpreter) -> str:
    """What a zygote must share with this grader to fork its workers: the Python and its environment, the worker's
    code, and this process's cgroup, namespaces and limits (a worker lives where its zygote does)."""
    import resource  # Linux's, as every caller here: the portable path never imports it
    digest = hashlib.sha256()
    digest.update(json.dumps([interpreter.executable, sorted(interpreter.env.items())]).encode())
    for name in sorted({*WORKER_FILES, "zygote.py"}):
        digest.update(name.encode() + (WORKER_DIR / name).read_bytes())
    digest.update(Path("/proc/self/cgroup").read_bytes())
    for name in NAMESPACES + ("user",):
        try:
            digest.update(f"{name}:{os.stat(f'/proc/self/ns/{name}').st_ino}".encode())
        except OSError:
            pass
    for limit in sorted(name for name in dir(resource) if name.startswith("RLIMIT_")):
        digest.update(f"{limit}:{resource.getrlimit(getattr(resource, limit))}".encode())
    return digest.hexdigest()[:24]


def _connect(interpreter: Interpreter) -> socket.socket:
    import fcntl

    place = _folder()
    name = key(interpreter)
    path = place / f"{name}.sock"
    conn = _try_connect(path)
    if conn is not None:
        return conn
    with open(place / f"{name}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        conn = _try_connect(path)
        if conn is None:
            _spawn(interpreter, path)
            conn = _try_connect(path)
    if conn is None:
        raise ZygoteUnavailable("the zygote started but cannot be reached")
    return conn


def _try_connect(path: Path) -> socket.socket | None:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        conn.connect(str(path))
    except OSError:
        conn.close()
        return None
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
    if int.from_bytes(creds[4:8], "little", signed=True) != os.geteuid():
        conn.close()
        return None
    return conn


def _spawn(interpreter: Interpreter, path: Path, idle: float = settings.ZYGOTE_IDLE_SECONDS) -> None:
    """Start a zygote listening at ``path``; return once it listens. It leaves its starter at once (it is no grader's
    child, so no grader's tree or zombies hold it)."""
    try:
        path.unlink()
    except FileNotFoundError:
        pass
    ready_r, ready_w = os.pipe()
    log = path.with_suffix(".log")
    with open(log, "wb") as errors:
        proc = subprocess.Popen(
            [interpreter.executable, "-I", "-B", str(WORKER_DIR / "zygote.py"), "--socket", str(path),
             "--ready-fd", str(ready_w), "--idle", str(idle)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors, pass_fds=(ready_w,),
            env=worker_env(interpreter, "/tmp"), start_new_session=True, cwd="/",
        )
    os.close(ready_w)
    try:
        proc.wait(timeout=START_SECONDS)  # the first fork, at once
        ready = select.select([ready_r], [], [], START_SECONDS)[0] and os.read(ready_r, 16) == b"ready"
        if not ready:
            raise ZygoteUnavailable(
                f"the zygote did not start in {START_SECONDS} s: {log.read_text(errors='replace')[-1500:]}")
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise ZygoteUnavailable("the zygote did not start") from None
    finally:
        os.close(ready_r)
