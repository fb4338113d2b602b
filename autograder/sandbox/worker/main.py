"""The worker: the only process that imports and runs student code.

Started by ``autograder.sandbox.process`` (inside bubblewrap where available) as
``python -I -B main.py --submission DIR ...``. Before importing anything a student wrote it
volunteers to be the first the OOM killer picks, drops to the sandbox uid, dies with the
grader, adopts every orphan of its tree (child subreaper), sets its limits, imports torch and
confines itself (Landlock, seccomp; see ``confine``), which every module's child inherits. It answers
requests on two pipe fds: ``import`` a module, ``call`` a function, ``reset``. Replies hold only
plain data (see ``wire``).

The first process (``FirstProcess``) never runs student code, and it alone holds the grader's pipes. Each ``import``
forks a child (``serve_module``) with pipes of its own (requests and replies); the first process passes each request on,
reads the child's reply within the wire's bounds and passes on only a value or an error, under the grader's id,
streaming the arrays. A ``reset`` is the first process's alone: it kills the child's group and every leftover (every
process of the sandbox uid or of the PID namespace, or else every descendant, which the subreaper sees even after it
left the process group), wipes the scratch folder and the sandbox uid's SysV IPC objects, and only then answers; the
grader checks /proc itself. So what one module (one test: the grader resets between tests) does to the interpreter, its
files or its pipes cannot reach the next. On SIGUSR1 (a call ran out of time) the child is killed and the grader told,
so a timeout costs no new worker. If the child dies any other way, this process dies the same way, and the grader reads
how.
"""

from __future__ import annotations

import argparse
import functools
import gc
import os
import select
import signal
import stat
import sys
import threading
import time
import warnings
from dataclasses import dataclass
from typing import NoReturn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import confine  # noqa: E402 - beside this file in the box
import procfs  # noqa: E402
import wire  # noqa: E402
from isolation import Isolation, IsolationError  # noqa: E402
from serving import ModuleServer, flush_output  # noqa: E402
from wire import MAX_REPLY_BYTES, MAX_TEXT, WORKER_BROKEN  # noqa: E402

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
CHUNK = 1 << 20  # bytes of a reply the first process reads at a time


def _prctl(option: int, value: int) -> bool:
    try:
        return _libc().prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


@functools.cache
def _libc():  # noqa: ANN202 - a ctypes.CDLL
    """The C library, loaded once in the first process: loading it makes a class and a function object, which in each
    test's process (its parent death signal) would cost a copy of every page they touch."""
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def volunteer_for_oom(score: int) -> None:
    """Be the OOM killer's first choice (children inherit it; set as root, student code cannot lower it)."""
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write(str(score))
    except OSError:
        pass


def drop_privileges(uid: int, gid: int) -> None:
    """Become ``uid``/``gid`` for good (real, effective and saved ids), dropping all capabilities."""
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    if os.getuid() != uid or os.geteuid() != uid:
        raise SystemExit("could not drop privileges")
    confine.set_capabilities(0)  # the uid change emptied what it may use; bubblewrap left what it kept inheritable


def set_limits(memory_mb: int, max_processes: int, max_file_mb: int, max_open_files: int = 256) -> None:
    """Cap address space, processes (``max_processes``: the value of RLIMIT_NPROC, 0 for none), file size, open files
    and core dumps for this process tree."""
    import resource

    cap = _cap
    if memory_mb > 0:
        cap(resource.RLIMIT_AS, memory_mb << 20)
    if max_processes > 0 and os.getuid() != 0:
        cap(resource.RLIMIT_NPROC, max_processes)
    cap(resource.RLIMIT_FSIZE, max_file_mb << 20)
    cap(resource.RLIMIT_NOFILE, max_open_files)  # also bounds memory held in memfd files (each at most max_file_mb)
    cap(resource.RLIMIT_CORE, 0)


def _cap(which: int, value: int) -> None:
    """Set a resource limit (soft and hard), never above a hard limit already in force."""
    import resource

    soft, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(which, (value, value))


# Where /proc cannot say what the imports took: torch 2.13's CPU build on Linux x86_64 (bench/bench_worker_memory.py).
ASSUMED_START_MB = 600


def address_space_mb() -> int | None:
    """This process's address space now (VmSize), or None where /proc does not say."""
    status = procfs.status("self")
    return None if status is None or status.vm_size_kb is None else status.vm_size_kb >> 10


def cap_address_space(room_mb: int) -> None:
    """Let student code add ``room_mb`` of address space to what this worker holds after its imports (0: no cap)."""
    if room_mb > 0:
        import resource

        _cap(resource.RLIMIT_AS, (room_mb + (address_space_mb() or ASSUMED_START_MB)) << 20)


COLLAPSE = True  # False in a zygote's child: the zygote collapsed what it shares with it, before any fork
MADV_COLLAPSE = 25  # Linux 6.1+: back a range with transparent huge pages now
HUGE_PAGE = 2 << 20


def collapse_into_huge_pages() -> int:
    """Back this process's anonymous memory (torch's tables and Python's objects) with 2 MB pages; return how many
    bytes.

    A fork then copies hundreds of page-table entries instead of tens of thousands, and each child's exit frees as few:
    a module's child per test starts and ends in a fraction of the time. A child's write still copies 4 KB (a shared
    huge page is split on its first write), and the address space, which the memory limit counts, does not change.
    Where the kernel cannot (before 6.1, huge pages off), nothing changes."""
    try:
        import ctypes

        madvise = ctypes.CDLL(None, use_errno=True).madvise
        madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    except (OSError, AttributeError):
        return 0
    done = 0
    for low, high, perms, path in procfs.memory_map("self"):
        if not perms.startswith("rw") or path not in ("", "[heap]"):
            continue  # anonymous read-write memory only: no file, stack or guard page
        low, high = -(-low // HUGE_PAGE) * HUGE_PAGE, high // HUGE_PAGE * HUGE_PAGE
        if high > low and madvise(low, high - low, MADV_COLLAPSE) == 0:
            done += high - low
    return done


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The worker's command line, as ``autograder.sandbox.policy.worker_command`` builds it (``argv``: the arguments a
    zygote's child was given)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--submission", required=True)
    parser.add_argument("--fd-in", type=int, required=True)
    parser.add_argument("--fd-out", type=int, required=True)
    parser.add_argument("--uid", type=int, default=-1)
    parser.add_argument("--gid", type=int, default=-1)
    parser.add_argument("--memory-mb", type=int, default=0)
    parser.add_argument("--max-processes", type=int, default=256)
    parser.add_argument("--max-file-mb", type=int, default=64)
    parser.add_argument("--cleanup", choices=("namespace", "uid", "descendants"), default="descendants",
                        help="which leftovers are ours: the PID namespace's, the sandbox uid's, or our descendants")
    parser.add_argument(
        "--scratch", required=True, help="the one folder student code may write (wiped between submissions)"
    )
    parser.add_argument("--landlock", action="append", default=None, metavar="PATH",
                        help="confine each module with Landlock; PATH may be read (repeatable)")
    parser.add_argument("--seccomp", action="store_true", help="load the syscall filter in each module's child")
    parser.add_argument("--oom-score-adj", type=int, default=1000)
    parser.add_argument("--user-namespace", action="store_true",
                        help="enter a user namespace of its own: its processes get a count of their own")
    return parser.parse_args(argv)


def enter_sandbox(args: argparse.Namespace) -> None:
    """What this process does before it imports anything more: OOM score, the sandbox uid or a user namespace, death
    with its parent, subreaper, limits."""
    parent = os.getppid()
    volunteer_for_oom(args.oom_score_adj)
    if args.uid >= 0:
        drop_privileges(args.uid, args.gid)
    if args.user_namespace:
        try:
            confine.enter_user_namespace()  # while this process has one thread, which unshare requires
        except confine.ConfineError as exc:
            raise SystemExit(str(exc)) from None
    _die_with_parent(parent)  # after the uid change, which clears the parent-death signal
    _prctl(PR_SET_CHILD_SUBREAPER, 1)  # orphans of the module's processes come back to us, not to init
    # Address space is capped after the imports: what torch takes depends on its build (CPU 0.6 GB, CUDA 3 GB).
    # RLIMIT_NPROC counts every process and thread of the real uid in this user namespace. Where that count is this
    # worker's own (a uid or a user namespace of its own), it caps the whole tree. Where it is shared with the user's
    # other programs (another worker among them), it is what they run now plus the room, and only each module's child
    # takes it: a module of another worker that fills the count can stop this one's module from starting processes,
    # never this process from starting the next test's.
    own_count = args.cleanup != "descendants" or args.user_namespace
    set_limits(0, args.max_processes if own_count else 0, args.max_file_mb)
    args.module_processes = None if own_count else args.max_processes + _tasks_of(os.getuid())


# glibc's mallopt parameter for the most arenas its allocator keeps (malloc.h).
M_ARENA_MAX = -8


def one_malloc_arena() -> None:
    """Let every thread of this process and its children allocate from one glibc arena. By default each thread that
    allocates gets an arena of its own, which reserves 64 MB of address space: a module that starts torch's threads
    added 254 MB with 4 of them and 526 MB with 8 (31 and 64 MB, their stacks, with one arena), memory it never used,
    and failed a call's hard address-space cap (the long-sequence tests') with linear code. Elsewhere (another C
    library) nothing changes."""
    import ctypes

    try:
        ctypes.CDLL(None).mallopt(ctypes.c_int(M_ARENA_MAX), ctypes.c_int(1))
    except (OSError, AttributeError):
        pass


def import_libraries(args: argparse.Namespace) -> None:
    """Import what every module's child shares (torch, the layers' libraries), then cap the address space."""
    import cleanup  # noqa: F401 - used by FirstProcess.wipe
    import torch

    one_malloc_arena()
    torch.set_num_threads(1)
    # torch sets itself up on its first operation in a process (it reads the CPU's features in /proc and /sys, sets
    # its thread pools); done here, before any fork, every test's process inherits it instead of doing it again.
    torch.ones(1).add(1)
    if args.seccomp:
        # finds and loads libseccomp now: a module's child may not be able to fork ldconfig
        import pyseccomp  # noqa: F401
    if args.landlock is not None:
        import landlockpy  # noqa: F401
    cap_address_space(args.memory_mb)
    gc.freeze()  # the collector never writes to what the imports made: each module's child keeps those pages shared


def main() -> None:
    """Set this process up, then serve the grader until it closes its pipe."""
    run(parse_args())


def run(args: argparse.Namespace) -> NoReturn:
    """Enter the sandbox, import (a zygote's child finds it done), and serve the grader until it closes its pipe."""
    enter_sandbox(args)
    import_libraries(args)
    FirstProcess(args).serve()


@dataclass(frozen=True)
class ModuleEnds:
    """The pipes between the first process and one module's child: requests and replies."""

    parent_req: int
    child_req: int
    child_rep: int
    parent_rep: int
    child_out: int  # the child's fds 1 and 2: a pipe of its own, so nothing it does to them reaches the next child
    parent_out: int

    @classmethod
    def create(cls) -> ModuleEnds:
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        out_r, out_w = os.pipe()
        for fd in (req_w, rep_w):
            wire.widen_pipe(fd)
        wire.widen_pipe(out_w)
        os.set_blocking(out_r, False)
        return cls(
            parent_req=req_w, child_req=req_r, child_rep=rep_w, parent_rep=rep_r, child_out=out_w, parent_out=out_r
        )


@dataclass
class ModuleChild:
    """One module's child as the first process holds it."""

    pid: int  # 0 once reaped
    pgid: int
    ends: ModuleEnds
    pidfd: int | None = None  # None where the kernel has no pidfd_open (see _pidfd)
    output_open: bool = True  # until every writer of the child's output pipe has closed it


class FirstProcess:
    """The worker's first process: it holds the grader's pipes, forks a child per module and relays between them."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.fd_in, self.fd_out = args.fd_in, args.fd_out
        submission = os.path.abspath(args.submission)
        sys.path.insert(0, submission)
        os.chdir(submission)
        self.server = ModuleServer(submission)
        self.pid = os.getpid()
        self.request_id = None  # the id of the grader's request being answered
        self.child: ModuleChild | None = None
        self.interrupted = False  # SIGUSR1 came since the module's child was forked
        self.delay_before: float | None = None  # the child's wait for a CPU when the current request reached it
        self.waited: float | None = (
            None  # how long it waited for one during that request, once it answered or was stopped
        )
        self.capped: bool | None = None  # whether this process capped the current call's memory (None: not asked to)
        self.runnable = False  # whether the child's main thread was ready to run when the call was stopped
        self.fault = ""  # why this process could not confine itself
        self.isolation: Isolation | None = None
        # Before any student code: what the wipe restores (a module may chmod the folder so that its owner cannot list
        # it).
        self.scratch_mode = stat.S_IMODE(os.stat(args.scratch).st_mode)

    def serve(self) -> NoReturn:
        """Confine this process, say it is ready, then answer the grader's requests until its pipe closes."""
        signal.signal(signal.SIGUSR1, self.on_interrupt)
        self.wipe()
        # Confined once, here: every module's process inherits the layers (a fork per test then costs no filter to
        # build).
        self.fault = _confine(self.args)
        if not self.fault:
            try:
                self.isolation = Isolation.prepare(self.args.landlock is not None, self.args.seccomp)
            except IsolationError as exc:
                self.fault = str(exc)[:MAX_TEXT]
        # While the first module is forked and imported: each fork after it is cheaper. Python 3.12+ warns of a fork
        # while a thread runs; this one takes no lock a child could need, and the warning would reach what students are
        # shown.
        warnings.filterwarnings(
            "ignore", message=r"This process \(pid=\d+\) is multi-threaded", category=DeprecationWarning
        )
        if COLLAPSE:
            threading.Thread(target=collapse_into_huge_pages, name="collapse", daemon=True).start()
        # A fault is said here, before any student code ran, or never: the grader trusts no later one.
        self.reply({"ok": True, "ready": True, "pid": self.pid, **({"fault": self.fault} if self.fault else {})})
        while True:
            try:
                request, blobs = wire.read_message(self.fd_in)
            except EOFError:
                os._exit(0)
            self.request_id = request.get("id")
            self.handle(request, blobs)

    def handle(self, request: dict, blobs: list) -> None:
        """Answer one request: import, call, reset or ping."""
        op = request.get("op")
        if op == "import":
            self.end_module()
            self.start_module(request, blobs)
        elif op == "reset":
            self.end_module()
            self.reply({"ok": True, "reset": True})
        elif op == "call" and self.child is not None:
            self.relay_request(request, blobs)
        elif op == "call":
            self.reply(_protocol_error("no module is imported"))
        elif op == "ping":
            self.reply({"ok": True})
        else:
            self.reply(_protocol_error(f"unknown op {op!r}"))

    def reply(self, header: dict) -> None:
        """Answer the grader's current request."""
        wire.write_message(self.fd_out, dict(header, id=self.request_id), [])

    def start_module(self, request: dict, blobs: list) -> None:
        """Fork a child for one module and pass on its answer to the import (or the grader's own fault)."""
        if self.isolation is None:  # this process could not confine itself, and said so in its greeting
            self.reply(_protocol_error("the sandbox is not confined"))
            return
        ends = ModuleEnds.create()
        self.interrupted = False
        flush_output()
        pid = _fork()
        if pid == 0:
            try:
                serve_module(self.server, request, blobs, ends, self.pid, (self.fd_in, self.fd_out), self.isolation,
                             self.args.module_processes)
            finally:
                os._exit(WORKER_BROKEN)
        try:
            os.setpgid(pid, pid)  # also here, so that an interrupt right after the fork finds the group
        except OSError:
            pass
        self.child = ModuleChild(pid, pid, ends)
        self.delay_before = 0.0  # a new process has waited for nothing yet
        for fd in (ends.child_req, ends.child_rep, ends.child_out):
            os.close(fd)
        self.child.pidfd = _pidfd(pid)
        self.relay_reply()

    def relay_request(self, request: dict, blobs: list) -> None:
        """Pass a call on to the module's child, then its answer back."""
        self.delay_before = (
            procfs.leader_run_delay(self.child.pid) if self.child is not None and self.child.pid else None
        )
        self.capped = self.cap_memory(request.get("meter"))
        try:
            wire.write_message(self.child.ends.parent_req, request, blobs)
        except OSError:
            pass  # the child is gone: relay_reply finds out how
        self.relay_reply()

    def relay_reply(self) -> None:
        """Pass the child's answer on as a value or an error with the grader's id; anything else it says is dropped."""
        from_child = self.child.ends.parent_rep
        try:
            header, table = wire.read_header(from_child, self.read_from_child, MAX_REPLY_BYTES)
            answer = _answer(header)
            if answer is None or (table and "value" not in answer):
                raise wire.WireError("not a value or an error")
        except (EOFError, OSError):
            self.child_gone()
            return
        except wire.WireError as exc:  # the module wrote something of its own on its reply pipe: it ends here
            self.end_module()
            self.reply({"ok": False, "unreadable": str(exc)[:200]})
            return
        self.relay_output()  # what the module printed before it answered reaches the grader first
        self.note_wait()
        if self.waited is not None:  # said by this process, never by the child (``_answer`` keeps none of its own keys)
            answer["waited"] = round(self.waited, 4)
        if self.capped is not None:
            answer["capped"] = self.capped
            self.capped = None
        _write(self.fd_out, wire.frame(dict(answer, id=self.request_id), table))
        left = sum(size for size, _dtype in table)
        while left:  # streamed: the first process never holds a reply's arrays
            try:
                chunk = self.read_from_child(from_child, min(left, CHUNK))
            except (EOFError, OSError):
                status = self.wait_child()
                self.relay_output()
                _die_like(status)  # half a reply went out: the grader reads how the child ended
            _write(self.fd_out, chunk)
            left -= len(chunk)

    def read_from_child(self, fd: int, n: int) -> bytearray:
        """``n`` bytes from the child's reply pipe; EOFError once the child has ended and the pipe holds nothing
        more."""
        child, buffer, got = self.child, bytearray(), 0
        while got < n:
            if not select.select([fd], [], [], 0)[0]:
                ready = select.select([fd, *([child.ends.parent_out] if child.output_open else []),
                                       *([child.pidfd] if child.pidfd is not None else [])], [], [])[0]
                if child.output_open and child.ends.parent_out in ready:
                    self.relay_output()
                if fd not in ready:
                    if child.pidfd is not None and child.pidfd in ready:
                        raise EOFError("the module's child ended")
                    continue
            if len(buffer) == got:
                buffer.extend(bytes(min(n - got, CHUNK)))
            got = wire.read_into(fd, buffer, got)
        return buffer

    def relay_output(self, limit: int = 1 << 20) -> None:
        """Pass on what the module's processes printed so far, up to ``limit`` bytes at a time (its pipe never blocks
        this process, and a process that prints without end cannot keep it here)."""
        child = self.child
        if child is None or not child.output_open:
            return
        while limit > 0:
            limit -= 1 << 16
            # pipe to pipe in the kernel where it can (the grader's end of fd 1 is a pipe): no copy through this process
            try:
                moved = os.splice(child.ends.parent_out, 1, 1 << 16) if _SPLICE else -1
            except BlockingIOError:
                return
            except OSError:
                moved = -1
            if moved == -1:
                try:
                    chunk = os.read(child.ends.parent_out, 1 << 16)
                except BlockingIOError:
                    return
                except OSError:
                    chunk = b""
                if chunk:
                    _write(1, chunk)
                moved = len(chunk)
            if not moved:
                child.output_open = False
                return

    def child_gone(self) -> None:
        """The child stopped answering: after an interrupt say so, else say how it ended (this process lives on, so a
        module that crashes costs its call's time, not a new worker)."""
        status = self.wait_child()
        self.end_module()
        if self.interrupted:
            _discard_input(self.fd_in)  # the rest of a request sent only in part
            self.request_id = None
            self.reply({"ok": True, "interrupted": True, "runnable": self.runnable,
                        **({"waited": round(self.waited, 4)} if self.waited is not None else {})})
        else:
            self.reply(
                {"ok": False, "ended": -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)}
            )

    def wait_child(self) -> int:
        """Kill the child's group and reap the child; its wait status (0 when there is no child to reap)."""
        child = self.child
        if child is None or not child.pid:
            return 0
        for kill, target in ((os.killpg, child.pid), (os.kill, child.pid)):  # it may have left its own group
            try:
                kill(target, signal.SIGKILL)
            except OSError:
                pass
        try:
            _, status = os.waitpid(child.pid, 0)
        except ChildProcessError:
            status = 0
        child.pid = 0
        return status

    def end_module(self) -> None:
        """Kill the module's child and everything of the sandbox it left (never asking it), then wipe what it wrote."""
        child = self.child
        if child is None:
            return
        self.wait_child()
        _kill_leftovers(child.pgid, self.args.cleanup)
        self.relay_output()  # every writer is gone: the rest of what they printed, up to the end of the pipe
        for fd in (
            child.ends.parent_req,
            child.ends.parent_rep,
            child.ends.parent_out,
            *([child.pidfd] if child.pidfd is not None else []),
        ):
            try:
                os.close(fd)
            except OSError:
                pass
        self.child = None
        self.wipe()

    def wipe(self) -> None:
        """Nothing of one module reaches the next: no file in scratch or (own uid) in shared folders, no SysV IPC
        object."""
        import cleanup  # imported with torch, after the limits

        for fd in (
            1,
            2,
        ):  # the output pipe is shared with every module's process: a module may have made it non-blocking
            try:
                os.set_blocking(fd, True)
            except OSError:
                pass
        # the folder is the sandbox uid's (or, under bubblewrap, made with a fixed mode): its owner can always
        # restore it
        try:
            os.chmod(self.args.scratch, self.scratch_mode)
        except OSError:
            pass
        cleanup.empty_folder(self.args.scratch)  # its entries, and the folder's own timestamps and attributes
        if self.args.cleanup != "descendants":
            cleanup.remove_sysv_ipc(os.getuid())
        cleanup.fresh_keyrings(
            own_uid=self.args.cleanup == "uid"
        )  # refused under seccomp, where no test could add a key
        if (
            self.args.cleanup == "uid" and self.args.landlock is None
        ):  # under Landlock nothing of the sandbox can be there
            cleanup.remove_entries(cleanup.entries_owned_by(os.getuid()))

    def cap_memory(self, meter: object) -> bool | None:
        """For a metered call with ``memory_mb``: lower the hard address-space limit of the module's child and of every
        process it started to what each holds now plus that room (None: no cap asked). Set from here, before the call
        is passed on, a hard limit no process of the sandbox uid can raise again; it stays for the rest of the test
        (the next test gets a fresh child). False where it could not be set (no ``prlimit``, no /proc)."""
        if not isinstance(meter, dict) or type(meter.get("memory_mb")) is not int or meter["memory_mb"] <= 0:
            return None
        import resource

        room, capped = meter["memory_mb"] << 20, False
        for pid in [self.child.pid, *_descendants_of(self.child.pid)]:
            status = procfs.status(pid)
            if status is None or status.vm_size_kb is None:
                continue
            limit = (status.vm_size_kb << 10) + room
            try:
                _soft, hard = resource.prlimit(pid, resource.RLIMIT_AS)
                if hard != resource.RLIM_INFINITY:
                    limit = min(limit, hard)
                resource.prlimit(pid, resource.RLIMIT_AS, (limit, limit))
                capped = capped or pid == self.child.pid
            except (OSError, ValueError, AttributeError):
                continue
        return capped

    def note_wait(self) -> None:
        """How long the module's child waited for a CPU since the current request reached it (None: not known here)."""
        now = procfs.leader_run_delay(self.child.pid) if self.child is not None and self.child.pid else None
        self.waited = None if now is None or self.delay_before is None else max(now - self.delay_before, 0.0)

    def on_interrupt(self, signum, frame) -> None:
        """SIGUSR1: the call ran out of time; kill the module's child (``child_gone`` then tells the grader), after
        noting how long it waited for a CPU (the grader tells a slow call from a starved one by it)."""
        self.interrupted = True
        self.note_wait()
        child = self.child
        # The kernel adds a wait to run_delay only when the thread gets a CPU: one still waiting for it now says so
        # here.
        state = procfs.stat(child.pid) if child is not None and child.pid else None
        self.runnable = state is not None and state.state == "R"
        if child is not None and child.pid:
            try:
                os.killpg(child.pid, signal.SIGKILL)
            except OSError:
                try:
                    os.kill(child.pid, signal.SIGKILL)
                except OSError:
                    pass


def serve_module(
    server: ModuleServer,
    request: dict,
    blobs: list,
    ends: ModuleEnds,
    first: int,
    grader_fds: tuple[int, int],
    isolation: Isolation,
    processes: int | None = None,
) -> NoReturn:
    """In the forked child: import the module, then answer calls on the child's own pipes until they close.

    The child never holds the grader's pipes: what student code writes reaches only the first process, which
    passes on values and errors and nothing else. It holds no descriptor of the first process's either, and cannot
    act on it (``isolation``). ``processes``: the child's own RLIMIT_NPROC, where the first process has none."""
    signal.signal(signal.SIGUSR1, signal.SIG_DFL)
    os.setpgid(0, 0)  # the module's own processes can be killed as a group afterwards
    _die_with_parent(first)
    for fd in (*grader_fds, ends.parent_req, ends.parent_rep, ends.parent_out):
        os.close(fd)
    try:
        isolation.enter(ends.child_out, keep=(ends.child_req, ends.child_rep))
    except IsolationError:
        os._exit(WORKER_BROKEN)  # found working before any student code ran (the greeting's probe): not reached
    if processes is not None:
        # The grader's own thread starts before the cap, which the user's other programs may have filled already (and
        # after the isolation, which binds only the thread that enters it): then only what the module starts is refused.
        server.watch.start()
        import resource

        _cap(resource.RLIMIT_NPROC, processes)

    def send(header: dict, out_blobs: list | None = None) -> None:
        flush_output()  # what the code printed reaches the grader before the reply does
        wire.write_message(ends.child_rep, header, out_blobs or [])

    while True:
        server.handle(request, blobs, send)
        try:
            request, blobs = wire.read_message(ends.child_req)
        except EOFError:
            os._exit(0)


ANSWER_KEYS = (
    "ok",
    "value",
    "error",
    "seconds",
    "changed",
    "metered",
)  # metered: checked by the grader (metering.read_report)
_SPLICE = hasattr(os, "splice")


def _answer(header: dict) -> dict | None:
    """What the first process passes on from a child's reply: a value or an error, never a fault, reset or id."""
    if type(header.get("ok")) is not bool:
        return None
    answer = {k: header[k] for k in ANSWER_KEYS if k in header}
    if not answer["ok"]:
        answer.pop("value", None)
        error = answer.get("error")
        if not isinstance(error, dict):
            return None
        answer["error"] = {k: str(error.get(k, ""))[:MAX_TEXT] for k in ("type", "message", "traceback")}
        listed = error.get("builtins")  # the built-in exception classes it is an instance of
        if isinstance(listed, list):
            answer["error"]["builtins"] = [str(name)[:80] for name in listed[:64]]
    if "seconds" in answer and type(answer["seconds"]) not in (int, float):
        answer.pop("seconds")
    if "changed" in answer:  # the names of the arguments the call modified in place
        changed = answer.pop("changed")
        if answer["ok"] and isinstance(changed, list):
            answer["changed"] = [str(name)[:80] for name in changed[:20]]
    return answer


def _protocol_error(message: str) -> dict:
    return {"ok": False, "error": {"type": "ProtocolError", "message": message, "traceback": ""}}


def _pidfd(pid: int) -> int | None:
    try:
        return os.pidfd_open(pid)
    except (OSError, AttributeError):
        return None  # an older kernel: the reply pipe's end of file is then the only sign of the child's end


def _write(fd: int, data) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _confine(args: argparse.Namespace) -> str:
    """Apply the kernel layers to this process, which every module's process inherits; '' or why they failed (a fault
    of the grader's machine, never of the student: no student code has run yet)."""
    try:
        if args.landlock is not None:
            confine.apply_landlock(args.landlock, [args.scratch])
        if args.seccomp:
            confine.apply_seccomp()
        return ""
    except confine.ConfineError as exc:
        return str(exc)[:MAX_TEXT] or "a layer failed"


def _tasks_of(uid: int) -> int:
    """Processes and threads the real uid ``uid`` runs now (what RLIMIT_NPROC counts)."""
    statuses = (procfs.status(pid) for pid in procfs.pids())
    return sum(status.threads for status in statuses if status is not None and status.uid == uid)


def _die_with_parent(parent: int) -> None:
    """SIGKILL this process as soon as ``parent`` dies (so a module that kills the worker stops at once)."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(WORKER_BROKEN)


def _discard_input(fd: int) -> None:
    os.set_blocking(fd, False)
    try:
        while os.read(fd, 1 << 16):
            pass
    except BlockingIOError:
        pass
    finally:
        os.set_blocking(fd, True)


def _fork() -> int:
    # Processes just killed may still count against the process limit until they are reaped.
    for _ in range(50):
        try:
            return os.fork()
        except BlockingIOError:
            time.sleep(0.1)
    return os.fork()


def _kill_leftovers(pgid: int, cleanup: str) -> None:
    """Kill what a module left running and reap it, waiting (up to 5 s) until nothing is left, so the
    next module starts with a clean slate and its process limit is not spent on zombies."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass
    end = time.monotonic() + 5
    while True:
        if cleanup == "descendants":
            for pid in _children():
                for kill in (os.killpg, os.kill):
                    try:
                        kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
        else:
            try:
                os.kill(-1, signal.SIGKILL)  # every process we may signal: the namespace's or the uid's, not us
            except OSError:
                pass
        _reap()
        if not _others_alive(cleanup) or time.monotonic() > end:
            return
        time.sleep(0.01)


def _children() -> list[int]:
    """This process's children (none where there is no /proc: the process group is then all we can end)."""
    me = os.getpid()
    listed = procfs.children(me)
    if listed is not None:
        return listed
    return [pid for pid in procfs.pids() if (info := procfs.stat(pid)) is not None and info.ppid == me]


def _descendants_of(pid: int) -> list[int]:
    """The processes below ``pid`` (its children, theirs, and so on), as the kernel lists each one's children."""
    found, todo = [], [pid]
    while todo:
        for child in procfs.children(todo.pop()) or []:
            if child not in found:
                found.append(child)
                todo.append(child)
    return found


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _others_alive(cleanup: str) -> bool:
    """Whether the sandbox runs anything but this process (and the PID namespace's init)."""
    if cleanup == "descendants":
        return bool(_children())
    me, uid = os.getpid(), os.getuid()
    others = [pid for pid in procfs.pids() if pid not in (1, me)]
    if cleanup == "namespace":
        return bool(others)
    return any(procfs.owner(pid) == uid for pid in others)  # the owner of a process's /proc folder: its effective uid


def _die_like(status: int) -> NoReturn:
    """End this process the way the child ended, so the grader can tell the student how."""
    flush_output()
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            signal.signal(sig, signal.SIG_DFL)
        except (OSError, ValueError):
            pass
        os.kill(os.getpid(), sig)
        time.sleep(1)
        os._exit(128 + sig)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


if __name__ == "__main__":
    main()
