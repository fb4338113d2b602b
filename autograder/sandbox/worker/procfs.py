"""Reading /proc: what the grader and the worker learn of processes, parsed in one place.

The grader imports it as ``autograder.sandbox.worker.procfs``; the worker, which has it copied into its box,
as ``procfs``. Each function answers None (or skips the process) when a process ends while it is read, and
nothing reads /proc before a function is called: the portable self-check imports this on macOS and Windows.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

PROC = "/proc"


@dataclass(frozen=True)
class Stat:
    """What is read of /proc/<pid>/stat."""

    state: str  # one letter: "Z" for a zombie
    ppid: int
    session: int


@dataclass(frozen=True)
class Status:
    """What is read of /proc/<pid>/status."""

    uid: int  # the real uid: what RLIMIT_NPROC counts
    state: str
    threads: int
    nspids: tuple[int, ...]  # the pid in each PID namespace it belongs to, the outermost first
    vm_size_kb: int | None  # its address space (a kernel thread has none)


def read(path: str) -> bytes:
    """The whole of a /proc file, read without a file object (half the cost of ``open``'s buffered reader: the grader
    reads a few of these after every call); ``OSError`` as ``open`` gives."""
    fd = os.open(path, os.O_RDONLY)  # not inherited by a child (PEP 446)
    try:
        chunks = [os.read(fd, 4096)]
        while chunks[-1]:
            chunks.append(os.read(fd, 65536))
        return b"".join(chunks)
    finally:
        os.close(fd)


def pids() -> list[int]:
    """Every process id /proc lists ([] where there is no /proc)."""
    try:
        return [int(entry) for entry in os.listdir(PROC) if entry.isdigit()]
    except OSError:
        return []


def stat(pid: int | str) -> Stat | None:
    """The state, parent and session of ``pid``."""
    try:
        # the command's name may hold spaces and parentheses
        fields = read(f"{PROC}/{pid}/stat").rsplit(b")", 1)[1].split()
        return Stat(state=fields[0].decode("ascii", "replace"), ppid=int(fields[1]), session=int(fields[3]))
    except (OSError, ValueError, IndexError):
        return None


def status(pid: int | str) -> Status | None:
    """The ids, state, thread count and address space of ``pid`` (``"self"``: this process)."""
    try:
        fields = dict(line.split(b":", 1) for line in read(f"{PROC}/{pid}/status").splitlines() if b":" in line)
        size = fields.get(b"VmSize")
        return Status(
            uid=int(fields[b"Uid"].split()[0]),
            state=fields[b"State"].split()[0].decode("ascii", "replace"),
            threads=int(fields.get(b"Threads", b"1")),
            nspids=tuple(int(p) for p in fields.get(b"NSpid", b"").split()),
            vm_size_kb=int(size.split()[0]) if size else None,
        )
    except (OSError, ValueError, IndexError, KeyError):
        return None


def children(pid: int | str) -> list[int] | None:
    """The processes whose parent is ``pid`` (any of its threads), as the kernel lists them: a few reads instead of
    every process's stat. None where it does not list them (a kernel built without CONFIG_PROC_CHILDREN), ``pid`` is
    gone, or a thread ended while they were read (its children went to another): the caller then reads every
    process's parent instead."""
    try:
        threads = os.listdir(f"{PROC}/{pid}/task")
    except OSError:
        return None
    found: list[int] = []
    for tid in threads:
        try:
            found += [int(child) for child in read(f"{PROC}/{pid}/task/{tid}/children").split()]
        except (OSError, ValueError):
            return None
    return found if threads else None


def owner(pid: int | str) -> int | None:
    """The owner of /proc/<pid>: the process's effective uid."""
    try:
        return os.stat(f"{PROC}/{pid}").st_uid
    except OSError:
        return None


def environ(pid: int | str) -> list[bytes] | None:
    """The environment ``pid`` started with, as ``NAME=value`` entries."""
    try:
        return read(f"{PROC}/{pid}/environ").split(b"\0")
    except OSError:
        return None


def memory_map(pid: int | str) -> list[tuple[int, int, str, str]]:
    """(start, end, permissions, path) of each mapping of ``pid`` (path "" for anonymous memory; [] where
    unreadable)."""
    try:
        with open(f"{PROC}/{pid}/maps", encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    regions = []
    for line in lines:
        fields = line.split(maxsplit=5)
        try:
            low, high = (int(x, 16) for x in fields[0].split("-"))
            regions.append((low, high, fields[1], fields[5] if len(fields) > 5 else ""))
        except (ValueError, IndexError):
            continue
    return regions


@dataclass(frozen=True)
class Standing:
    """What a process's children inherit from it and student code could try to change from outside: its scheduling
    (nice value, policy, real-time priority, CPUs, I/O priority) and its resource limits. The grader compares it with
    what the worker's first process had before any student code ran."""

    state: str
    nice: int
    policy: int
    rt_priority: int
    cpus: str
    limits: str
    io_priority: int | None


def standing(pid: int | str) -> Standing | None:
    """The ``Standing`` of ``pid`` from /proc (readable by any user), or None once it is gone."""
    try:
        fields = read(f"{PROC}/{pid}/stat").rsplit(b")", 1)[1].split()
        cpus = next((line.split(b":", 1)[1].strip() for line in read(f"{PROC}/{pid}/status").splitlines()
                     if line.startswith(b"Cpus_allowed_list:")), b"")
        limits = read(f"{PROC}/{pid}/limits")
        return Standing(
            state=fields[0].decode("ascii", "replace"),
            nice=int(fields[16]),
            rt_priority=int(fields[37]),
            policy=int(fields[38]),
            cpus=cpus.decode("ascii", "replace"),
            limits=limits.decode("ascii", "replace"),
            io_priority=io_priority(int(pid)),
        )
    except (OSError, ValueError, IndexError):
        return None


def leader_run_delay(pid: int | str) -> float | None:
    """Seconds the main thread of ``pid`` (the one that runs the call) has spent ready to run but waiting for a CPU, or
    None where the kernel does not say. Only that thread: a process's own busy threads would make every thread wait,
    and that wait is its own doing, never the machine's."""
    try:
        return int(read(f"{PROC}/{pid}/schedstat").split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


def leader_cpu_seconds(pid: int | str) -> float | None:
    """CPU seconds the main thread of ``pid`` has run, in nanoseconds' precision (updated, as a cgroup's count is,
    whenever it stops running or a tick finds it running), or None where the kernel does not say."""
    try:
        return int(read(f"{PROC}/{pid}/schedstat").split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


_TICK = 1 / os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 0.01


def cpu_seconds(pid: int | str, own_precisely: bool = True) -> tuple[float, float] | None:
    """(CPU seconds ``pid`` used itself, every thread live or ended; those of the children it reaped), from ``stat``'s
    utime, stime, cutime and cstime, or None once it is gone. Where its live threads' ``schedstat`` says more precisely
    (nanoseconds, not clock ticks), that counts: a short call is then not rounded down to nothing (not read unless
    ``own_precisely``)."""
    try:
        fields = read(f"{PROC}/{pid}/stat").rsplit(b")", 1)[1].split()
        own, reaped = (int(fields[11]) + int(fields[12])) * _TICK, (int(fields[13]) + int(fields[14])) * _TICK
    except (OSError, ValueError, IndexError):
        return None
    if not own_precisely:
        return own, reaped
    precise = 0
    try:
        for tid in os.listdir(f"{PROC}/{pid}/task"):
            try:
                precise += int(read(f"{PROC}/{pid}/task/{tid}/schedstat").split()[0])
            except FileNotFoundError:
                continue
    except (OSError, ValueError, IndexError):
        precise = 0
    return max(own, precise / 1e9), reaped


IOPRIO_GET = {"x86_64": 252, "aarch64": 31}  # the syscall's number: the C library has no wrapper


def io_priority(pid: int) -> int | None:
    """``ioprio_get(IOPRIO_WHO_PROCESS, pid)``, or None where it cannot be asked."""
    number = IOPRIO_GET.get(os.uname().machine)
    if number is None:
        return None
    try:
        if not _LIBC:
            import ctypes

            _LIBC.append(ctypes.CDLL(None, use_errno=True))
        value = _LIBC[0].syscall(number, 1, pid)
    except (OSError, AttributeError):
        return None
    return None if value < 0 else value


_LIBC: list = []  # the C library, loaded at the first ``io_priority``
