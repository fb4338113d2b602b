"""Removing what student code wrote: used by the worker (its scratch folder) and the grader (the box)."""

from __future__ import annotations

import os
import stat

SHARED_TEMP = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")  # folders every user may write


def remove_tree(folder: str, keep_folder: bool = False) -> None:
    """``rm -rf --one-file-system folder`` (or only its contents), also through folders their owner locked (chmod 000).

    What is mounted inside is left alone: bubblewrap binds a project or Python that lives under the host's /tmp
    into the sandbox's /tmp, which is the worker's scratch.
    """
    try:
        device = os.lstat(folder).st_dev
    except OSError:
        return
    _remove_contents(folder, device)
    if not keep_folder:
        _quietly(os.rmdir, folder)


def _remove_contents(folder: str, device: int) -> None:
    try:
        entries = list(os.scandir(folder))
    except PermissionError:
        try:
            os.chmod(folder, 0o700)
            entries = list(os.scandir(folder))
        except OSError:
            return
    except OSError:
        return
    for entry in entries:
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if info.st_dev != device:
            continue  # a mount point
        if stat.S_ISDIR(info.st_mode):
            _remove_contents(entry.path, device)
            _quietly(os.rmdir, entry.path)
        elif not _quietly(os.unlink, entry.path):
            _quietly(os.chmod, folder, 0o700) and _quietly(os.unlink, entry.path)


def _quietly(func, *args) -> bool:
    try:
        func(*args)
        return True
    except OSError:
        return False


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
            if os.path.isdir(path) and not os.path.islink(path):
                remove_tree(path)
            else:
                os.unlink(path)
            removed.append(path)
        except OSError:
            continue
    return removed
