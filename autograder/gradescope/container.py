"""A fresh cgroup capped like a Gradescope container: CPU quota, memory limit, peak readout, kill all.

cgroup v2 is used where the process's own cgroup (or the mount's root) can delegate the ``cpu``
and ``memory`` controllers; otherwise the v1 ``memory`` and ``cpu`` hierarchies (plus ``cpuacct``
and ``freezer`` when mounted). Paths come from /proc/self/mountinfo and /proc/self/cgroup (read
by ``cgroupfs``), both of which a caller may pass in (the tests build a fake tree).
"""

from __future__ import annotations

import os
import re
import secrets
import signal
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..sandbox.cgroupfs import Mount, cgroup_dir, parse_membership, parse_mounts, read_keyed, read_number
from ..settings import KILL_SECONDS

CPU_PERIOD_US = 100_000


class CgroupUnavailable(Exception):
    """This machine cannot give us a capped cgroup; the message names what is missing and the fix."""


@dataclass(frozen=True)
class Caps:
    """What a container may use: CPUs (a fraction is a quota) and memory."""

    cpus: float
    memory_mb: int


def _write(path: Path, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None


def _pids(files: Iterable[Path]) -> set[int]:
    return {int(p) for f in files for p in (_read(f) or "").split() if p.isdigit()}


class Cgroup:
    """A cgroup made for one run. ``entry_command`` starts a program inside it; ``close`` kills what is left and removes
    it."""

    version = 0

    def __init__(self, dirs: list[Path]) -> None:
        self.dirs = list(dict.fromkeys(dirs))  # co-mounted v1 controllers share a folder

    def entry_command(self, argv: list[str]) -> list[str]:
        """``argv`` wrapped so that it joins this cgroup before it execs (so does everything it starts)."""
        procs = [str(d / "cgroup.procs") for d in self.dirs]
        script = 'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n-1)); done; exec "$@"'
        return ["/bin/sh", "-c", script, "sh", str(len(procs)), *procs, *argv]

    def pids(self) -> set[int]:
        """Every process in the cgroup (and any cgroup below it)."""
        return _pids(p for d in self.dirs for p in d.rglob("cgroup.procs"))

    def apply(self, caps: Caps) -> None:
        """Write the CPU quota and the memory limit (no swap beyond it)."""
        raise NotImplementedError

    def peak_mb(self) -> float | None:
        """The most memory the cgroup held at once, page cache included (None: the kernel does not say)."""
        raise NotImplementedError

    def oom_kills(self) -> int | None:
        """How many processes the OOM killer ended inside the cgroup."""
        raise NotImplementedError

    def cpu_seconds(self) -> float | None:
        """CPU time used by everything in the cgroup."""
        raise NotImplementedError

    def throttled_periods(self) -> int | None:
        """How many CPU periods the quota cut short: the kernel's evidence that the cap bites."""
        raise NotImplementedError

    def kill_all(self) -> int:
        """SIGKILL every process inside, as a container's end would; return how many there were."""
        killed: set[int] = set()
        end = time.monotonic() + KILL_SECONDS
        with self.frozen():
            while (left := self.pids() - killed) and time.monotonic() < end:
                for pid in left:
                    try:
                        os.kill(pid, signal.SIGKILL)
                        killed.add(pid)
                    except ProcessLookupError:
                        pass
        while self.pids() and time.monotonic() < end:
            time.sleep(0.02)
        return len(killed)

    @contextmanager
    def frozen(self) -> Iterator[None]:
        """Hold the processes still while they are killed, so none can fork meanwhile (where a freezer exists)."""
        yield

    def close(self) -> int:
        """Kill what is left, then remove the cgroup; return how many processes were killed."""
        killed = self.kill_all()
        for d in sorted(
            (sub for base in self.dirs for sub in [base, *base.rglob("*")] if sub.is_dir()), key=lambda p: -len(p.parts)
        ):
            for _ in range(50):  # the kernel lets go of a cgroup a moment after its last process
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.05)
        return killed


class CgroupV2(Cgroup):
    """One cgroup of the unified hierarchy."""

    version = 2

    def __init__(self, path: Path) -> None:
        super().__init__([path])
        self.path = path

    def apply(self, caps: Caps) -> None:
        _write(self.path / "cpu.max", f"{round(caps.cpus * CPU_PERIOD_US)} {CPU_PERIOD_US}")
        _write(self.path / "memory.max", str(caps.memory_mb << 20))
        if (self.path / "memory.swap.max").exists():
            _write(self.path / "memory.swap.max", "0")  # Gradescope's containers do not swap

    def peak_mb(self) -> float | None:
        peak = read_number(self.path / "memory.peak")  # kernels 5.19 and later
        return peak / (1 << 20) if peak is not None else None

    def oom_kills(self) -> int | None:
        return read_keyed(self.path / "memory.events", "oom_kill")

    def cpu_seconds(self) -> float | None:
        usec = read_keyed(self.path / "cpu.stat", "usage_usec")
        return usec / 1e6 if usec is not None else None

    def throttled_periods(self) -> int | None:
        return read_keyed(self.path / "cpu.stat", "nr_throttled")

    def kill_all(self) -> int:
        if (self.path / "cgroup.kill").exists():  # kernels 5.14 and later: atomic, even against forks
            count = len(self.pids())
            _write(self.path / "cgroup.kill", "1")
            end = time.monotonic() + KILL_SECONDS
            while self.pids() and time.monotonic() < end:
                time.sleep(0.02)
            return count
        return super().kill_all()


class CgroupV1(Cgroup):
    """One cgroup in each of the v1 hierarchies we use (memory, cpu; cpuacct and freezer when mounted)."""

    version = 1

    def __init__(self, dirs: dict[str, Path]) -> None:
        super().__init__(list(dirs.values()))
        self.by_controller = dirs

    def apply(self, caps: Caps) -> None:
        memory, cpu = self.by_controller["memory"], self.by_controller["cpu"]
        _write(memory / "memory.limit_in_bytes", str(caps.memory_mb << 20))
        if (memory / "memory.memsw.limit_in_bytes").exists():
            _write(memory / "memory.memsw.limit_in_bytes", str(caps.memory_mb << 20))  # no swapping past the limit
        _write(cpu / "cpu.cfs_period_us", str(CPU_PERIOD_US))
        _write(cpu / "cpu.cfs_quota_us", str(round(caps.cpus * CPU_PERIOD_US)))

    def peak_mb(self) -> float | None:
        peak = read_number(self.by_controller["memory"] / "memory.max_usage_in_bytes")
        return peak / (1 << 20) if peak is not None else None

    def oom_kills(self) -> int | None:
        return read_keyed(self.by_controller["memory"] / "memory.oom_control", "oom_kill")

    def cpu_seconds(self) -> float | None:
        acct = self.by_controller.get("cpuacct")
        nanoseconds = read_number(acct / "cpuacct.usage") if acct else None
        return nanoseconds / 1e9 if nanoseconds is not None else None

    def throttled_periods(self) -> int | None:
        return read_keyed(self.by_controller["cpu"] / "cpu.stat", "nr_throttled")

    def pids(self) -> set[int]:
        return _pids(self.by_controller["memory"].rglob("cgroup.procs"))

    @contextmanager
    def frozen(self) -> Iterator[None]:
        state = self.by_controller["freezer"] / "freezer.state" if "freezer" in self.by_controller else None
        if state is None:
            yield
            return
        _write(state, "FROZEN")
        end = time.monotonic() + KILL_SECONDS
        while (_read(state) or "").strip() != "FROZEN" and time.monotonic() < end:
            time.sleep(0.01)
        try:
            yield
        finally:
            _write(state, "THAWED")  # the pending SIGKILLs take effect as the processes thaw


def create(
    caps: Caps, mountinfo: str | None = None, membership: str | None = None, prefix: str = "autograder-gradescope"
) -> Cgroup:
    """A new cgroup with ``caps`` applied, below this process's own cgroups; raise CgroupUnavailable if the machine
    cannot."""
    if mountinfo is None:
        if os.geteuid() != 0:
            raise CgroupUnavailable(
                f"creating a cgroup needs root (you are uid {os.geteuid()}): run as root, e.g. `sudo make gradescope`"
            )
        mountinfo, membership = Path("/proc/self/mountinfo").read_text(), Path("/proc/self/cgroup").read_text()
    mounts, own = parse_mounts(mountinfo), parse_membership(membership or "")
    name = f"{prefix}-{os.getpid()}-{secrets.token_hex(3)}"
    reasons = []
    for attempt in (_create_v2, _create_v1):
        try:
            group = attempt(mounts, own, name)
        except CgroupUnavailable as exc:
            reasons.append(str(exc))
            continue
        try:
            group.apply(caps)
        except OSError as exc:
            group.close()
            reasons.append(f"v{group.version}: cannot set the limits ({exc})")
            continue
        for stale in _left_behind(group, prefix):
            stale.close()
        return group
    raise CgroupUnavailable(
        "no writable cgroup hierarchy with CPU and memory control: "
        + "; ".join(reasons)
        + ". Fix: run as root on a machine whose /sys/fs/cgroup is mounted read-write (a container needs --privileged"
        " or a delegated cgroup)"
    )


def _left_behind(group: Cgroup, prefix: str) -> list[Cgroup]:
    """Cgroups next to ``group`` that a run which was killed left behind (their creator is gone)."""
    pattern = re.compile(rf"{re.escape(prefix)}-(\d+)-[0-9a-f]+")

    def orphaned(path: Path) -> bool:
        match = pattern.fullmatch(path.name)
        return bool(match) and path.is_dir() and not Path(f"/proc/{match.group(1)}").exists()

    if isinstance(group, CgroupV2):
        return [CgroupV2(p) for p in group.path.parent.iterdir() if orphaned(p)]
    names = {p.name for p in group.by_controller["memory"].parent.iterdir() if orphaned(p)}
    return [
        CgroupV1({c: d.parent / n for c, d in group.by_controller.items() if (d.parent / n).is_dir()}) for n in names
    ]


def _create_v2(mounts: list[Mount], own: dict[str, str], name: str) -> CgroupV2:
    unified = next((m for m in mounts if m.version == 2), None)
    if unified is None:
        raise CgroupUnavailable("v2: no cgroup2 mount")
    candidates = list(dict.fromkeys([cgroup_dir(unified, own.get("", "/")), unified.mountpoint]))
    reasons = []
    for parent in candidates:
        available = set((_read(parent / "cgroup.controllers") or "").split())
        if not {"cpu", "memory"} <= available:
            reasons.append(f"{parent} offers the controllers {sorted(available) or 'none'}, not cpu and memory")
            continue
        try:
            enabled = set((_read(parent / "cgroup.subtree_control") or "").split())
            if not {"cpu", "memory"} <= enabled:
                _write(parent / "cgroup.subtree_control", "+cpu +memory")
            path = parent / name
            path.mkdir()
            return CgroupV2(path)
        except OSError as exc:
            reasons.append(f"{parent}: {exc.strerror or exc}")
    raise CgroupUnavailable("v2: " + "; ".join(reasons))


def _create_v1(mounts: list[Mount], own: dict[str, str], name: str) -> CgroupV1:
    wanted, optional = ("memory", "cpu"), ("cpuacct", "freezer")
    dirs: dict[str, Path] = {}
    for controller in wanted + optional:
        mount = next((m for m in mounts if m.version == 1 and controller in m.controllers), None)
        if mount is None:
            if controller in wanted:
                raise CgroupUnavailable(f"v1: no '{controller}' hierarchy is mounted")
            continue
        dirs[controller] = cgroup_dir(mount, own.get(controller, "/")) / name
    made: list[Path] = []
    try:
        for path in dict.fromkeys(dirs.values()):
            path.mkdir()
            made.append(path)
    except OSError as exc:
        for path in reversed(made):
            path.rmdir()
        raise CgroupUnavailable(f"v1: cannot create {exc.filename}: {exc.strerror}") from None
    return CgroupV1(dirs)
