"""Which user a worker runs as, when the grader is root: a uid of its own, leased per worker.

Each worker gets a uid (and gid) that no account and no running process uses, held by an
``flock`` for as long as the worker lives, so graders running side by side never share one.
With a uid of its own, "every process of this uid" is exactly what the submission started:
``kill_all`` ends them with one ``kill(-1, SIGKILL)`` sent as that uid, which needs no PID
namespace and cannot miss a process that forks while it runs.
"""

from __future__ import annotations

import os
import stat
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from .. import settings
from ..settings import KILL_SECONDS, UID_COUNT
from .worker import cleanup, procfs

UID_BASE = int(settings.AUTOGRADER_UID_BASE.value())


class IdentityError(RuntimeError):
    """No sandbox uid could be leased (a fault of the machine, never of a submission)."""


@dataclass
class Identity:
    """A leased uid/gid pair; ``release`` ends its processes and frees it."""

    uid: int
    gid: int
    lock_fd: int

    def release(self) -> None:
        """Kill whatever still runs as this uid, delete what it left in shared temporary folders and its SysV IPC
        objects, then free the lease."""
        if self.lock_fd < 0:
            return
        kill_all(self.uid, self.gid)
        remove_files_of(self.uid)
        cleanup.remove_sysv_ipc(self.uid)  # they outlive every process: the next lease of this uid must not find them
        os.close(self.lock_fd)
        self.lock_fd = -1


def lease() -> Identity:
    """A free uid/gid for one worker; raises ``IdentityError`` when all are taken."""
    import fcntl  # Unix only, like grp and pwd below: the portable self-check imports this module on Windows too

    folder = _lock_folder()
    busy = _uids_in_use()
    for uid in range(UID_BASE, UID_BASE + UID_COUNT):
        if uid in busy or _known(uid):
            continue
        fd = os.open(folder / str(uid), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        return Identity(uid, uid, fd)
    raise IdentityError(
        f"no free sandbox uid in {UID_BASE}..{UID_BASE + UID_COUNT - 1}; set AUTOGRADER_UID_BASE to a free range"
    )


def kill_all(uid: int, gid: int, seconds: float = KILL_SECONDS) -> list[int]:
    """SIGKILL every process running as ``uid`` until none is left; return the pids still alive after ``seconds``."""
    end = time.monotonic() + seconds
    while True:
        alive = processes_of(uid)
        if not alive or time.monotonic() > end:
            return alive
        # kill(-1) as the uid reaches every process it owns in one pass, forks included.
        subprocess.run(["/bin/sh", "-c", "kill -9 -1"], user=uid, group=gid, extra_groups=[], cwd="/",
                       env={"PATH": "/usr/bin:/bin"}, stdin=subprocess.DEVNULL, capture_output=True, check=False)
        time.sleep(0.02)


def files_of(uid: int) -> list[str]:
    """What ``uid`` left at the top of the shared temporary folders."""
    return cleanup.entries_owned_by(uid)  # without Landlock the sandbox uid can write there while it runs


def remove_files_of(uid: int) -> list[str]:
    """Delete what ``uid`` left at the top of the shared temporary folders; return the paths."""
    return cleanup.remove_entries(files_of(uid))


def processes_of(uid: int) -> list[int]:
    """Live pids whose real uid is ``uid`` (zombies are dead already: only their parent's wait removes them)."""
    return [pid for pid, (owner, zombie) in _process_uids().items() if owner == uid and not zombie]


def _process_uids() -> dict[int, tuple[int, bool]]:
    """Every process's real uid, and whether it is a zombie."""
    found = {}
    for pid in procfs.pids():
        status = procfs.status(pid)
        if status is not None:
            found[pid] = (status.uid, status.state == "Z")
    return found


def _uids_in_use() -> set[int]:
    return {owner for owner, _ in _process_uids().values()}


def _known(uid: int) -> bool:
    """Whether an account or a group already has this id (never borrow a real user's uid)."""
    import grp
    import pwd

    for lookup in (pwd.getpwuid, grp.getgrgid):
        try:
            lookup(uid)
            return True
        except KeyError:
            continue
    return False


def _lock_folder() -> Path:
    """A folder only root can write, shared by every grader on this machine."""
    for base in (Path("/run"), Path(tempfile.gettempdir()), Path("/tmp")):
        folder = base / "autograder-uids"
        try:
            folder.mkdir(mode=0o700, exist_ok=True)
            info = os.lstat(folder)
        except OSError:
            continue
        if stat.S_ISDIR(info.st_mode) and info.st_uid == 0 and not info.st_mode & 0o022:
            return folder
    raise IdentityError("no root-owned folder for the sandbox uid leases (tried /run, $TMPDIR and /tmp)")
