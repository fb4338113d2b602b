"""The marks the state attacker leaves, and how a later test or submission finds them (shared with the spy)."""

import fcntl
import os
import resource

MARK_PIPE = 1 << 18        # F_SETPIPE_SZ on fd 1: neither the kernel's default nor the 1 MB the worker gives each test
MARK_NOFILE = 200          # RLIMIT_NOFILE set on the worker's first process
MARK_NICE = 19
COUNTER = "r3-counter"     # a file in scratch, behind a folder made unlistable
MARK_TIME_NS = 41_000_000_000  # the scratch folder's own times (os.utime), where its user may set them
MARK_XATTR = "user.hx-mark"    # an extended attribute of the scratch folder itself


def _scratch() -> str:
    return os.environ.get("TMPDIR") or "/tmp"


def _try(done: list, what: str, action) -> None:
    try:
        action()
        done.append(what)
    except OSError as exc:
        done.append(f"{what} refused ({exc.errno})")


def marks_found() -> list[str]:
    """Each mark of the state attacker (and of the boundary's) that this process inherited or can see."""
    seen = []
    try:
        if any(name == COUNTER or name == "r3" for name in os.listdir(_scratch())):
            seen.append("scratch files")
        if os.stat(_scratch()).st_mtime_ns == MARK_TIME_NS:
            seen.append("scratch times")
        if MARK_XATTR in os.listxattr(_scratch()):
            seen.append("scratch attribute")
    except OSError as exc:
        seen.append(f"scratch unreadable ({exc.errno})")
    for fd in (0, 1, 2):
        try:
            flags = fcntl.fcntl(fd, fcntl.F_GETFL)
            if flags & (os.O_APPEND | os.O_NONBLOCK | fcntl.FASYNC | getattr(os, "O_DIRECT", 0)):
                seen.append(f"fd {fd} flags {flags:#o}")
            if fcntl.fcntl(fd, fcntl.F_GETOWN) != 0:
                seen.append(f"fd {fd} owner")
        except OSError:
            continue
    try:
        if fcntl.fcntl(1, fcntl.F_GETPIPE_SZ) == MARK_PIPE:
            seen.append("pipe size")
    except OSError:
        pass
    if os.getpriority(os.PRIO_PROCESS, 0) == MARK_NICE:
        seen.append("nice")
    if os.sched_getscheduler(0) == os.SCHED_IDLE:
        seen.append("SCHED_IDLE")
    if resource.getrlimit(resource.RLIMIT_NOFILE)[1] == MARK_NOFILE:
        seen.append("open files limit")
    return seen
