"""Where this process's cgroups are, and the memory limit they put on it (cgroup v1 and v2).

Read from /proc/self/mountinfo and /proc/self/cgroup; every function takes those texts so the
tests can point it at a fake tree.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

UNLIMITED = 1 << 62  # v1 reports "no limit" as a number near 2**63


@dataclass(frozen=True)
class Mount:
    """One mounted cgroup hierarchy."""

    version: int
    controllers: frozenset[str]  # v1: from the mount options; v2: empty (read cgroup.controllers)
    mountpoint: Path
    root: str  # the hierarchy's path that is mounted at ``mountpoint``


def parse_mounts(mountinfo: str) -> list[Mount]:
    """The cgroup mounts listed in a /proc/<pid>/mountinfo text."""
    found = []
    for line in mountinfo.splitlines():
        fields = line.split()
        if " - " not in line or len(fields) < 5:
            continue
        before, after = line.split(" - ", 1)
        fstype, _source, *options = after.split()
        options = options[0].split(",") if options else []
        root, mountpoint = before.split()[3], Path(_unescape(before.split()[4]))
        if fstype == "cgroup2":
            found.append(Mount(2, frozenset(), mountpoint, root))
        elif fstype == "cgroup":
            found.append(
                Mount(1, frozenset(o.removeprefix("name=") for o in options if o not in ("rw", "ro")), mountpoint, root)
            )
    return found


def parse_membership(proc_cgroup: str) -> dict[str, str]:
    """Controller (or "" for v2) -> this process's cgroup path, from a /proc/<pid>/cgroup text."""
    paths: dict[str, str] = {}
    for line in proc_cgroup.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        for name in controllers.split(",") if controllers else [""]:
            paths[name.removeprefix("name=")] = path
    return paths


def cgroup_dir(mount: Mount, path: str) -> Path:
    """Where the cgroup ``path`` of ``mount``'s hierarchy appears in the filesystem."""
    rel = path if mount.root == "/" else path.removeprefix(mount.root) if path.startswith(mount.root) else "/"
    return mount.mountpoint / rel.lstrip("/")


def _unescape(text: str) -> str:
    return text.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\")


def own_texts() -> tuple[str, str]:
    """This process's mountinfo and cgroup membership."""
    return Path("/proc/self/mountinfo").read_text(), Path("/proc/self/cgroup").read_text()


@dataclass(frozen=True)
class MemoryLimit:
    """The memory limit this process lives under, and where it was read (or why it could not be)."""

    mb: int | None  # None: no limit
    source: str
    readable: bool = True


def memory_limit(mountinfo: str | None = None, membership: str | None = None) -> MemoryLimit:
    """The smallest memory limit on this process's cgroups and their ancestors (v2 memory.max, v1 hierarchical
    limit)."""
    try:
        if mountinfo is None:
            mountinfo, membership = own_texts()
    except OSError as exc:
        return MemoryLimit(None, f"unreadable ({exc.strerror})", readable=False)
    mounts, own = parse_mounts(mountinfo), parse_membership(membership or "")
    found: list[tuple[int, str]] = []
    seen = False
    unified = next((m for m in mounts if m.version == 2), None)
    if unified is not None and "" in own:
        here = cgroup_dir(unified, own[""])
        for folder in [here, *here.parents]:
            if not folder.is_relative_to(unified.mountpoint):
                break
            value = read_number(folder / "memory.max")
            seen = seen or (folder / "memory.max").exists()
            found.append((value, f"cgroup v2 {folder / 'memory.max'}"))
    memory = next((m for m in mounts if m.version == 1 and "memory" in m.controllers), None)
    if memory is not None:
        folder = cgroup_dir(memory, own.get("memory", "/"))
        seen = seen or (folder / "memory.limit_in_bytes").exists()
        found.append(
            (read_keyed(folder / "memory.stat", "hierarchical_memory_limit"), f"cgroup v1 {folder / 'memory.stat'}")
        )
        found.append((read_number(folder / "memory.limit_in_bytes"), f"cgroup v1 {folder / 'memory.limit_in_bytes'}"))
    limits = [(b, where) for b, where in found if b is not None and b < UNLIMITED]
    if limits:
        value, where = min(limits)
        return MemoryLimit(value >> 20, where)
    return (
        MemoryLimit(None, "no memory limit on this process's cgroups")
        if seen
        else MemoryLimit(None, "no cgroup memory controller found", False)
    )


def read_number(path: Path) -> int | None:
    """A cgroup file holding one integer (None if absent, unreadable or "max")."""
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def read_keyed(path: Path, key: str) -> int | None:
    """The value of ``key`` in a flat-keyed cgroup file (memory.stat, memory.events, cpu.stat)."""
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        name, _, value = line.partition(" ")
        if name == key and value.strip().isdigit():
            return int(value)
    return None
