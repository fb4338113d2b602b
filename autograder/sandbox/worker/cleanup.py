"""Removing and measuring what student code wrote: used by the worker (its scratch folder) and the grader (the box).

Walks are iterative and work on open folders (``dir_fd``), never on long paths, so no depth of folders made by
student code can exhaust the recursion limit or a path's length; links are never followed.
"""

from __future__ import annotations

import ctypes
import itertools
import os
import stat
import sys
from dataclasses import dataclass

SHARED_TEMP = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")  # folders every user may write
MAX_DEPTH = 64          # deeper folder trees in scratch stop the call that made them
MAX_ENTRIES = 10_000    # files, folders and links in scratch (hard links count one each)
# The walks run only on Linux; the portable self-check (Windows, macOS) imports this module through the grader's side of
# the sandbox.
_OPEN_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC if hasattr(os, "O_NOFOLLOW") else -1
IPC_RMID = 0
SYSV_TABLES = {
    "shm": ("shmctl", 1),
    "msg": ("msgctl", 1),
    "sem": ("semctl", 1),
}  # /proc/sysvipc/<kind>: ctl function, id column


def remove_tree(folder: str, keep_folder: bool = False) -> None:
    """``rm -rf --one-file-system folder`` (or only its contents), also through folders their owner locked (chmod 000).

    What is mounted inside is left alone: bubblewrap binds a project or Python that lives under the host's /tmp
    into the sandbox's /tmp, which is the worker's scratch. Any depth: each folder's entries are moved up into
    ``folder`` before the folder is removed, so only two folders are open at a time.
    """
    try:
        top = os.open(folder, _OPEN_DIR)
    except PermissionError:  # its owner (or root) can always give itself the right to list it again
        try:
            os.chmod(folder, 0o700)
            top = os.open(folder, _OPEN_DIR)
        except OSError:
            return
    except OSError:
        return
    try:
        _flatten_and_remove(top, os.fstat(top).st_dev)
    finally:
        os.close(top)
    if not keep_folder:
        _quietly(os.rmdir, folder)


# What the scratch folder's own timestamps are set to after every wipe: none of a test's marks (``os.utime``) survives.
FOLDER_TIME_NS = 0


def empty_folder(folder: str) -> None:
    """Remove everything in ``folder`` and what of the folder itself a process may have written: its timestamps (set to
    ``FOLDER_TIME_NS``) and its extended attributes (``user.*``, ACLs). What is left is only what its owner chose: its
    mode (restored by the caller) and its mount points."""
    remove_tree(folder, keep_folder=True)
    unmark(folder)


def unmark(folder: str) -> None:
    """Give ``folder`` itself back fixed timestamps and no extended attributes (whoever may: its owner, or root)."""
    for name in _xattrs(folder):
        _quietly(os.removexattr, folder, name, follow_symlinks=False)
    _quietly(os.utime, folder, ns=(FOLDER_TIME_NS, FOLDER_TIME_NS), follow_symlinks=False)


def _xattrs(path: str) -> list[str]:
    try:
        return sorted(os.listxattr(path, follow_symlinks=False))
    except (OSError, AttributeError):  # no extended attributes here (or on this system)
        return []


def _flatten_and_remove(top: int, device: int) -> None:
    fresh = (f".autograder-rm-{os.getpid()}-{n}" for n in itertools.count())
    todo = _names(top)
    while todo:
        name = todo.pop()
        try:
            info = os.stat(name, dir_fd=top, follow_symlinks=False)
        except OSError:
            continue
        if info.st_dev != device:
            continue  # a mount point
        if not stat.S_ISDIR(info.st_mode):
            if not _quietly(os.unlink, name, dir_fd=top):
                _quietly(os.fchmod, top, 0o700) and _quietly(os.unlink, name, dir_fd=top)
            continue
        try:
            sub = os.open(name, _OPEN_DIR, dir_fd=top)
        except PermissionError:
            if not _quietly(os.chmod, name, 0o700, dir_fd=top):
                continue
            try:
                sub = os.open(name, _OPEN_DIR, dir_fd=top)
            except OSError:
                continue
        except OSError:
            continue
        try:
            _quietly(os.fchmod, sub, 0o700)
            for inner in _names(sub):
                moved = next(fresh)
                if _quietly(os.rename, inner, moved, src_dir_fd=sub, dst_dir_fd=top):
                    todo.append(moved)
        finally:
            os.close(sub)
        _quietly(os.rmdir, name, dir_fd=top)


def _names(dir_fd: int) -> list[str]:
    try:
        with os.scandir(dir_fd) as entries:
            return [e.name for e in entries]
    except OSError:
        return []


def _quietly(func, *args, **kwargs) -> bool:
    try:
        func(*args, **kwargs)
        return True
    except OSError:
        return False


@dataclass
class Usage:
    """What a folder tree holds: bytes on disk (or in memory), entries, and whether it went deeper than allowed."""

    bytes: int = 0
    entries: int = 0
    too_deep: bool = False


def usage(path: str, found: Usage | None = None, max_entries: int = MAX_ENTRIES, max_depth: int = MAX_DEPTH) -> Usage:
    """Measure ``path`` (a file or a folder, links not followed); stops counting past ``max_entries`` or
    ``max_depth``."""
    found = found or Usage()
    try:
        info = os.lstat(path)
    except OSError:
        return found
    found.bytes += info.st_blocks * 512
    found.entries += 1
    if not stat.S_ISDIR(info.st_mode):
        return found
    try:
        first = _open_listable(path)
    except OSError:
        return found
    stack, device = [(first, 1)], info.st_dev
    try:
        while stack and found.entries <= max_entries:
            fd, depth = stack.pop()
            try:
                for name in _names(fd):
                    try:
                        entry = os.stat(name, dir_fd=fd, follow_symlinks=False)
                    except OSError:
                        continue
                    if entry.st_dev != device:
                        continue  # a mount point (bubblewrap binds a project under the host's /tmp into its own)
                    found.bytes += entry.st_blocks * 512
                    found.entries += 1
                    if stat.S_ISDIR(entry.st_mode):
                        if depth >= max_depth:
                            found.too_deep = True
                            continue
                        try:
                            stack.append((_open_listable(name, fd), depth + 1))
                        except OSError:
                            continue
            finally:
                os.close(fd)
    finally:
        for fd, _depth in stack:
            os.close(fd)
    return found


VIEW_ENTRIES = 256


def view(path: str, max_entries: int = VIEW_ENTRIES, max_depth: int = MAX_DEPTH) -> tuple:
    """What a folder holds, as (path, kind, mode, owner) rows sorted by path, itself first (with its modification time
    and extended attributes: what of the folder itself a process can set), mount points and what is below them left
    out: two views are equal when nothing was added, removed, or changed in mode or owner, and the folder's own time and
    attributes are as they were. A tree of more than ``max_entries`` entries, deeper than ``max_depth`` or unreadable
    gives a view that equals no other."""
    try:
        info = os.lstat(path)
        first = os.open(path, _OPEN_DIR)
    except OSError as exc:
        return (("unreadable", exc.errno),)
    own = (info.st_mtime_ns, tuple((name, _xattr(path, name)) for name in _xattrs(path)))
    rows = [(".", stat.S_IFMT(info.st_mode), stat.S_IMODE(info.st_mode), info.st_uid, own)]
    stack, device = [(first, ".", 1)], info.st_dev
    try:
        while stack:
            fd, rel, depth = stack.pop()
            try:
                for name in _names(fd):
                    try:
                        entry = os.stat(name, dir_fd=fd, follow_symlinks=False)
                    except OSError:
                        continue
                    if entry.st_dev != device:
                        continue
                    sub = f"{rel}/{name}"
                    rows.append((sub, stat.S_IFMT(entry.st_mode), stat.S_IMODE(entry.st_mode), entry.st_uid))
                    if len(rows) > max_entries or (stat.S_ISDIR(entry.st_mode) and depth >= max_depth):
                        return (("too large", len(rows)),)
                    if stat.S_ISDIR(entry.st_mode):
                        try:
                            stack.append((os.open(name, _OPEN_DIR, dir_fd=fd), sub, depth + 1))
                        except OSError:
                            return (("unreadable", sub),)
            finally:
                os.close(fd)
    finally:
        for fd, _rel, _depth in stack:
            os.close(fd)
    return tuple(sorted(rows))


def _xattr(path: str, name: str) -> bytes | None:
    try:
        return os.getxattr(path, name, follow_symlinks=False)
    except OSError:
        return None


def _open_listable(name: str, dir_fd: int | None = None) -> int:
    """Open a folder to list it; one its owner made unlistable (chmod 0300) is given back its owner's rights first, so a
    grader of the same user is not blind to what student code writes behind it (root lists it anyway)."""
    try:
        return os.open(name, _OPEN_DIR, dir_fd=dir_fd)
    except PermissionError:
        os.chmod(name, 0o700, dir_fd=dir_fd)
        return os.open(name, _OPEN_DIR, dir_fd=dir_fd)


def entries_owned_by(uid: int, folders: tuple[str, ...] = SHARED_TEMP) -> list[str]:
    """The entries that ``uid`` owns at the top of ``folders`` (what a sandbox uid left in shared temporary folders)."""
    found = []
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.stat(follow_symlinks=False).st_uid == uid:
                    found.append(entry.path)
            except OSError:
                continue
    return found


def remove_entries(paths: list[str]) -> list[str]:
    """Delete each path (a folder with all it holds); return those removed."""
    removed = []
    for path in paths:
        try:
            if stat.S_ISDIR(os.lstat(path).st_mode):
                remove_tree(path)
            else:
                os.unlink(path)
            removed.append(path)
        except OSError:
            continue
    return removed


# keyctl's number per machine (no libc wrapper); the keyrings of a uid that outlive its processes; keyctl's operations.
KEYCTL_SYSCALL = {"x86_64": 250, "aarch64": 219, "arm64": 219}
KEYRINGS = {"session": -3, "user": -4, "user session": -5}
KEYCTL_JOIN_SESSION_KEYRING, KEYCTL_CLEAR = 1, 7


def fresh_keyrings(own_uid: bool) -> list[str]:
    """A key outlives the process that added it: give the next test's process a fresh, empty session keyring (this
    process joins one, each child it forks inherits it) and, with a uid of its own (``own_uid``: never the grader's
    user, whose keys these would be), empty that uid's keyrings. Where seccomp refuses ``keyctl`` no test could add a
    key, and this does nothing. Returns the keyrings renewed."""
    import platform

    number = KEYCTL_SYSCALL.get(platform.machine())
    if number is None or not sys.platform.startswith("linux"):
        return []
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return []
    libc.syscall.restype = ctypes.c_long
    done = ["session"] if libc.syscall(number, KEYCTL_JOIN_SESSION_KEYRING, None) >= 0 else []
    for name in ("user", "user session") if own_uid else ():
        if libc.syscall(number, KEYCTL_CLEAR, ctypes.c_long(KEYRINGS[name])) == 0:
            done.append(name)
    return done


def sysv_ipc_of(uid: int) -> list[tuple[str, int]]:
    """(kind, id) of every SysV shared memory segment, message queue and semaphore set that ``uid`` owns or created."""
    found = []
    for kind, (_ctl, id_column) in SYSV_TABLES.items():
        try:
            with open(f"/proc/sysvipc/{kind}", encoding="ascii", errors="replace") as f:
                lines = f.read().splitlines()
        except OSError:
            continue
        if not lines:
            continue
        columns = lines[0].split()
        for line in lines[1:]:
            fields = dict(zip(columns, line.split()))
            try:
                if uid in (int(fields["uid"]), int(fields["cuid"])):
                    found.append((kind, int(line.split()[id_column])))
            except (KeyError, ValueError, IndexError):
                continue
    return found


def remove_sysv_ipc(uid: int) -> list[tuple[str, int]]:
    """Remove ``uid``'s SysV IPC objects (they outlive every process, and count against no process's memory limit)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return []
    removed = []
    for kind, ident in sysv_ipc_of(uid):
        ctl = getattr(libc, SYSV_TABLES[kind][0])
        if ctl(ident, *((0,) if kind == "sem" else ()), IPC_RMID, None) == 0:
            removed.append((kind, ident))
    return removed
