"""The worker's memory limit: what the container leaves once the grader has its share.

The limit is address space (``RLIMIT_AS``), not memory: a worker needs ``WORKER_START_MB`` of
it just to import torch, of which only a part is resident. On top of that the student's code
may use what the container's memory leaves after the grader's share (manifest:
``gradescope.grader_memory_mb``: otter, its kernel, the grader and the worker's own torch). So
a module that allocates all it may cannot push the container over its limit.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import cgroupfs
from .manifest import Assignment

# Address space a worker needs to start (import torch): 587 MB measured with Python 3.11, torch
# 2.13 CPU on Linux x86_64 (bench/bench_worker_memory.py), rounded up.
WORKER_START_MB = 600
# Room the reference's own data need above that (48 MB measured: the long random-features test),
# with margin: never give the worker less, or correct solutions would fail (a grader fault).
MIN_ROOM_MB = 96


@dataclass(frozen=True)
class WorkerMemory:
    """The worker's address-space limit and how it was chosen (for the staff's log)."""

    mb: int
    reason: str
    warning: str = ""


def choose(assignment: Assignment, container: cgroupfs.MemoryLimit | None = None) -> WorkerMemory:
    """The worker's limit under ``container`` (default: read this process's cgroups), capped by the problems' own limits."""
    container = container or cgroupfs.memory_limit()
    settings = assignment.gradescope
    if container.readable and container.mb is None:
        return WorkerMemory(assignment.max_memory_mb, "no container memory limit: the problems' own limit")
    total, where = (container.mb, container.source) if container.readable else (settings.memory_mb, f"assumed from the manifest ({container.source})")
    room = total - settings.grader_memory_mb
    reason = (f"container {total} MB ({where}) - grader's share {settings.grader_memory_mb} MB "
              f"+ {WORKER_START_MB} MB of address space to import torch")
    warning = ""
    if room < MIN_ROOM_MB:
        needed = settings.grader_memory_mb + MIN_ROOM_MB
        warning = (f"the container's memory ({total} MB) leaves only {room} MB for the student's code after the grader's share; "
                   f"the worker gets {MIN_ROOM_MB} MB anyway: raise the assignment's memory on Gradescope to at least {needed} MB")
        room = MIN_ROOM_MB
    return WorkerMemory(min(assignment.max_memory_mb, WORKER_START_MB + room), reason, warning)
