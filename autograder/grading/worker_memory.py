"""The worker's memory limit: the room the container leaves student code once the grader has its share.

The limit is address space (``RLIMIT_AS``) that student code may add to what the worker holds after
its own imports (the worker measures that itself: torch takes 0.6 GB of address space in its CPU build,
3 GB in a CUDA build), so it does not depend on the torch build. The room is the container's memory
minus the grader's share (manifest: ``gradescope.grader_memory_mb``: the grading process and the worker's own
resident torch, with a margin; ``make gradescope`` measures the container), so a module that allocates all it
may cannot push the container over its limit.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model.manifest import Assignment
from ..sandbox import cgroupfs
from ..settings import MIN_ROOM_MB


@dataclass(frozen=True)
class WorkerMemory:
    """The worker's room for student data and how it was chosen (for the staff's log)."""

    mb: int
    reason: str
    warning: str = ""


def choose(assignment: Assignment, container: cgroupfs.MemoryLimit | None = None) -> WorkerMemory:
    """The worker's room under ``container`` (default: read this process's cgroups), capped by the assignment's
    ``worker_memory_mb``."""
    container = container or cgroupfs.memory_limit()
    settings = assignment.gradescope
    if container.readable and container.mb is None:
        return WorkerMemory(
            assignment.worker_memory_mb,
            "no container memory limit: the assignment's worker_memory_mb, beyond the worker's imports",
        )
    total, where = (
        (container.mb, container.source)
        if container.readable
        else (settings.memory_mb, f"assumed from the manifest ({container.source})")
    )
    room = total - settings.grader_memory_mb
    reason = (
        f"container {total} MB ({where}) - grader's share {settings.grader_memory_mb} MB, beyond the worker's imports"
    )
    warning = ""
    if room < MIN_ROOM_MB:
        needed = settings.grader_memory_mb + MIN_ROOM_MB
        warning = (
            f"the container's memory ({total} MB) leaves only {room} MB for the student's code after the grader's "
            "share; "
            f"the worker gets {MIN_ROOM_MB} MB anyway: raise the assignment's memory on Gradescope to at least "
            f"{needed} MB"
        )
        room = MIN_ROOM_MB
    return WorkerMemory(min(assignment.worker_memory_mb, room), reason, warning)


def gradescope_room(assignment: Assignment) -> WorkerMemory:
    """The room the worker gets in the container the manifest describes (what validation grades fair variants with)."""
    return choose(
        assignment, cgroupfs.MemoryLimit(assignment.gradescope.memory_mb, "the manifest's Gradescope container")
    )
