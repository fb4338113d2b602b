"""What keeps a test's process away from the worker's first process and from what the test before it left.

The first process prepares this once (``Isolation.prepare``, before any student code runs) and each test's child
applies it right after its fork (``Isolation.enter``), so nothing of one test reaches the next through the process
that forks them all:

- the child gets standard streams of its own: fd 0 a new ``/dev/null``, fds 1 and 2 a new pipe that the first
  process drains and passes on; every other inherited descriptor is closed. Flags, ``F_SETOWN``/``O_ASYNC`` and the
  size of a pipe it changes end with it;
- the first process is not dumpable: a process of the same uid cannot open ``/proc/<first>/fd/*``, its memory or
  its writable /proc files (the child makes itself dumpable again, so the grader still reads it in /proc);
- where Landlock runs, the child enters a domain nested in the first process's: it can no longer signal the
  first process (ABI 6 and later) nor access it as a debugger would (``/proc/<first>/fd``), at any ABI;
- where seccomp runs, a second filter names the first process: no signal (``kill``, ``tgkill``, ``pidfd_open``,
  ``pidfd_send_signal``), no ``F_SETOWN`` to it, no joining its process group; and no change of another process's
  priority, scheduling, I/O priority, CPU set or limits; and no change of SIGCHLD's action (an ignored SIGCHLD reaps
  children without counting their CPU time in their parent's, which the grader adds up).

What a layer cannot stop (no Landlock, no seccomp) the grader finds in /proc after the test and ends the worker.
"""

from __future__ import annotations

import ctypes
import errno
import os
import signal

PR_SET_DUMPABLE = 4
PR_SET_SECCOMP = 22
LANDLOCK_CREATE_RULESET, LANDLOCK_RESTRICT_SELF = 444, 446  # the same number on every architecture
SECCOMP_MODE_FILTER = 2
F_SETOWN, F_SETOWN_EX = 8, 15
FIOSETOWN, SIOCSPGRP = 0x8901, 0x8902
IOPRIO_WHO_PROCESS = 1
U32 = 0xFFFFFFFF
# Calls that name another process by pid in their first argument: refused unless that pid is 0 (the caller).
OWN_PROCESS_ONLY = (
    "sched_setscheduler",
    "sched_setparam",
    "sched_setattr",
    "sched_setaffinity",
    "migrate_pages",
    "move_pages",
)
# Calls that name the first process by pid in their first argument: refused for that pid.
SIGNALS = ("kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_open")
REFUSED = ("pidfd_send_signal", "process_madvise", "process_mrelease")  # a /proc/<pid> folder serves as a pidfd


class IsolationError(RuntimeError):
    """A layer the first process applied to itself cannot be applied to a test's process (a fault of the machine)."""


class _Filter(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class Isolation:
    """Prepared by the first process; entered by each test's child before any student code runs."""

    def __init__(self, first: int, landlock: bool, seccomp: bool) -> None:
        self.first = first
        self.landlock = landlock
        self.program: bytes | None = _child_filter(first) if seccomp else None
        # Everything a child's entry needs is made here, once: the child then only makes system calls. Python code run
        # in a child writes to the pages of each object it touches (each a copy of a page of this process), and building
        # a Landlock ruleset with landlockpy or loading a library with ctypes touches hundreds.
        libc = ctypes.CDLL(None, use_errno=True)
        self._prctl = libc.prctl
        self._prctl.argtypes = (ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong)
        self._syscall = libc.syscall
        self._syscall.restype = ctypes.c_long
        self._domain = _nested_domain() if landlock else None
        self._filter = None
        if self.program is not None:
            buffer = ctypes.create_string_buffer(self.program, len(self.program))
            self._filter = (buffer, _Filter(len(self.program) // 8, ctypes.cast(buffer, ctypes.c_void_p)))

    @classmethod
    def prepare(cls, landlock: bool, seccomp: bool) -> Isolation:
        """In the first process: build the child's filter, stop being dumpable, ignore SIGIO (an ``O_ASYNC`` pipe's
        signal); then try it all in a throwaway child, so a layer that fails is the grader's fault, found before any
        student code runs (raises ``IsolationError``)."""
        made = cls(os.getpid(), landlock, seccomp)
        _prctl(PR_SET_DUMPABLE, 0)
        signal.signal(signal.SIGIO, signal.SIG_IGN)
        made.probe()
        return made

    def probe(self) -> None:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(read)
                self.confine()
                os._exit(0)
            except BaseException as exc:  # noqa: BLE001
                os.write(write, str(exc).encode()[:1000])
                os._exit(1)
        os.close(write)
        message = os.read(read, 1000).decode(errors="replace")
        os.close(read)
        _, status = os.waitpid(pid, 0)
        if status != 0:
            raise IsolationError(message or f"a test's process could not be confined (wait status {status})")

    def enter(self, output: int, keep: tuple[int, ...]) -> None:
        """In a test's child: fresh standard streams (``output`` becomes fds 1 and 2), every other descriptor but
        ``keep`` closed, dumpable again, SIGIO back to its default, then the nested layers."""
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(output, 1)
        os.dup2(output, 2)
        keep = tuple(sorted({0, 1, 2, *keep}))
        for low, high in zip(keep, (*keep[1:], 1 << 20)):
            if high > low + 1:
                os.closerange(low + 1, high)
        signal.signal(signal.SIGIO, signal.SIG_DFL)
        self._prctl(PR_SET_DUMPABLE, 1, None, 0, 0)
        self.confine()

    def confine(self) -> None:
        """The nested Landlock domain and the filter that names the first process."""
        if self.landlock:
            self._enter_domain()
        if self._filter is not None:
            if self._prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(self._filter[1]), 0, 0) != 0:
                raise IsolationError(
                    f"the test's seccomp filter could not be loaded: {os.strerror(ctypes.get_errno())}"
                )

    def _enter_domain(self) -> None:
        """Restrict this process to a Landlock domain made from ``_domain`` (the rights the first process chose): a
        ruleset of its own, enforced and closed here, so that no ruleset is shared between tests."""
        fd = self._syscall(LANDLOCK_CREATE_RULESET, ctypes.byref(self._domain), ctypes.sizeof(self._domain), 0)
        if fd < 0:
            raise IsolationError(f"the test's Landlock ruleset could not be made: {os.strerror(ctypes.get_errno())}")
        try:  # no_new_privs, which Landlock requires, is inherited: the first process set it with its own domain
            if self._syscall(LANDLOCK_RESTRICT_SELF, fd, 0) != 0:
                raise IsolationError(
                    f"the test's Landlock domain could not be entered: {os.strerror(ctypes.get_errno())}"
                )
        finally:
            os.close(fd)


def _prctl(option: int, value: int) -> bool:
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


class _RulesetAttr(ctypes.Structure):
    """The kernel's ``struct landlock_ruleset_attr`` up to ``scoped`` (ABI 6; an older kernel reads what it knows and
    requires the rest to be zero, which landlockpy's choice of rights for that ABI makes it)."""

    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


def _nested_domain() -> _RulesetAttr:
    """The rights of a Landlock domain inside the first process's, as this kernel supports them (landlockpy decides):
    it handles one right nobody is given (making block devices), so the files stay as the outer domain allows; its
    scopes keep signals and abstract sockets inside it."""
    from landlockpy import AccessFS, AccessNet, Ruleset, Scope

    try:
        with Ruleset(handled_fs=AccessFS.MAKE_BLOCK, handled_net=AccessNet.NONE,
                     scoped=Scope.SIGNAL | Scope.ABSTRACT_UNIX_SOCKET) as ruleset:
            return _RulesetAttr(int(ruleset.handled_fs), int(ruleset.handled_net), int(ruleset.scoped))
    except Exception as exc:  # noqa: BLE001
        raise IsolationError(f"the test's Landlock domain could not be made: {type(exc).__name__}: {exc}") from None


def _child_filter(first: int) -> bytes:
    """The second seccomp filter of a test's process, as BPF (built once: each child only loads it)."""
    import pyseccomp as sc

    refuse = sc.ERRNO(errno.EPERM)
    rules = sc.SyscallFilter(defaction=sc.ALLOW)

    def add(name: str, *args) -> None:
        try:
            rules.add_rule(refuse, name, *args)
        except (RuntimeError, ValueError, OSError):
            pass  # a call this architecture or libseccomp does not know

    for target in (first, -first, -1):
        add("kill", sc.Arg(0, sc.MASKED_EQ, U32, target & U32))  # -1: every process the caller may signal
    for name in SIGNALS[1:]:
        add(name, sc.Arg(0, sc.MASKED_EQ, U32, first))
    add("setpgid", sc.Arg(1, sc.MASKED_EQ, U32, first))
    for target in (first, -first & U32):
        add("fcntl", sc.Arg(1, sc.EQ, F_SETOWN), sc.Arg(2, sc.MASKED_EQ, U32, target))
    add("fcntl", sc.Arg(1, sc.EQ, F_SETOWN_EX))
    for request in (FIOSETOWN, SIOCSPGRP):
        add("ioctl", sc.Arg(1, sc.MASKED_EQ, U32, request))
    add("setpriority", sc.Arg(0, sc.NE, 0))  # PRIO_PGRP, PRIO_USER: every process of a group or a user
    add("setpriority", sc.Arg(1, sc.NE, 0))
    for name in OWN_PROCESS_ONLY:
        add(name, sc.Arg(0, sc.NE, 0))
    add("prlimit64", sc.Arg(0, sc.NE, 0), sc.Arg(2, sc.NE, 0))  # reading another's limits is harmless; setting is not
    # An ignored SIGCHLD (or SA_NOCLDWAIT) reaps a child without adding its CPU time to its parent's: work done in a
    # child would vanish from what the grader measures. Reading the action stays allowed.
    add("rt_sigaction", sc.Arg(0, sc.EQ, int(signal.SIGCHLD)), sc.Arg(1, sc.NE, 0))
    add("ioprio_set", sc.Arg(0, sc.NE, IOPRIO_WHO_PROCESS))
    add("ioprio_set", sc.Arg(1, sc.NE, 0))
    for name in REFUSED:
        add(name)
    read, write = os.pipe()
    try:
        with open(write, "wb", closefd=False) as sink:
            rules.export_bpf(sink)
        os.close(write)
        write = -1
        chunks = []
        while chunk := os.read(read, 1 << 16):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(read)
        if write >= 0:
            os.close(write)
