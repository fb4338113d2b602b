"""A cgroup of the worker's own, where this machine lets the grader make one: the kernel counts there the CPU of every
process the worker starts, ended, reaped or not, so a call's CPU is one number that no process of the sandbox can
change or hide (a process whose parent ignores SIGCHLD is reaped unseen, and /proc then keeps no trace of its time).

Made where this process may write a cgroup folder: root on cgroup v1's ``cpuacct`` or v2, or a delegated v2 subtree.
Elsewhere (Gradescope's read-only cgroup mount, a staff laptop) ``create`` gives None and the CPU is read in /proc
(``WorkerProcess.tree_cpu``). ``AUTOGRADER_NO_CGROUP=1`` turns it off."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from .. import settings
from . import cgroupfs

PREFIX = "autograder-worker-"  # then the grader's pid and the worker's marker: a dead grader's folders can be found


@dataclass(frozen=True)
class CpuGroup:
    """One worker's cgroup: ``folder`` in a hierarchy of cgroup ``version`` 1 (``cpuacct``) or 2."""

    folder: Path
    version: int

    @classmethod
    def create(cls, marker: str) -> CpuGroup | None:
        """A new, empty cgroup for the worker whose marker is ``marker``; None where none can be made here."""
        place = where()
        if place is None:
            return None
        base, version = place
        remove_stale(base)
        folder = base / f"{PREFIX}{os.getpid()}-{marker}"
        try:
            folder.mkdir()
        except OSError:
            return None
        return cls(folder, version)

    def adopt(self, pid: int) -> bool:
        """Move the main thread of process ``pid`` into this cgroup (v2, where a process's threads never part: the whole
        process); every process that thread starts afterwards is born here."""
        try:
            (self.folder / ("tasks" if self.version == 1 else "cgroup.procs")).write_text(str(pid))
            return True
        except OSError:
            return False

    def cpu_seconds(self) -> float | None:
        """The CPU seconds every process of this cgroup used so far, including those that ended (None: unreadable)."""
        try:
            if self.version == 1:
                return int((self.folder / "cpuacct.usage").read_text()) / 1e9
            for line in (self.folder / "cpu.stat").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "usage_usec":
                    return int(value) / 1e6
        except (OSError, ValueError):
            return None
        return None

    def remove(self, patience: float = 2.0) -> bool:
        """Remove the folder once its processes are gone (a killed process leaves its cgroup as it finishes exiting);
        False if it still holds one after ``patience`` seconds (``remove_stale`` takes it later)."""
        end = time.monotonic() + patience
        while True:
            try:
                self.folder.rmdir()
                return True
            except FileNotFoundError:
                return True
            except OSError:
                if time.monotonic() > end:
                    return False
                time.sleep(0.02)


def where(mountinfo: str | None = None, membership: str | None = None) -> tuple[Path, int] | None:
    """The folder of this process's own cgroup where a worker's cgroup can be made (cgroup v1's ``cpuacct``, else v2),
    and the hierarchy's version; None when there is none this process may write."""
    if os.environ.get(settings.AUTOGRADER_NO_CGROUP.name) == "1":
        return None
    try:
        if mountinfo is None:
            mountinfo, membership = cgroupfs.own_texts()
    except OSError:
        return None
    mounts, own = cgroupfs.parse_mounts(mountinfo), cgroupfs.parse_membership(membership or "")
    candidates = [(cgroupfs.cgroup_dir(m, own.get("cpuacct", "/")), 1)
                  for m in mounts if m.version == 1 and "cpuacct" in m.controllers]
    candidates += [(cgroupfs.cgroup_dir(m, own[""]), 2) for m in mounts if m.version == 2 and "" in own]
    for folder, version in candidates:
        usage = folder / ("cpuacct.usage" if version == 1 else "cpu.stat")
        joined = folder / ("tasks" if version == 1 else "cgroup.procs")
        if usage.is_file() and os.access(folder, os.W_OK) and os.access(joined, os.W_OK):
            return folder, version
    return None


def available() -> bool:
    """Whether a grader here gets a cgroup for its worker."""
    return where() is not None


def remove_stale(base: Path) -> None:
    """Remove the empty worker cgroups of graders that are gone (killed before they could remove their own)."""
    try:
        entries = list(base.iterdir())
    except OSError:
        return
    for entry in entries:
        pid = entry.name.removeprefix(PREFIX).partition("-")[0]
        if not entry.name.startswith(PREFIX) or not pid.isdigit() or _alive(int(pid)):
            continue
        try:
            entry.rmdir()
        except OSError:
            continue  # a process of it still runs: a later grader tries again


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
