"""Removing what student code wrote: used by the worker (its scratch folder) and the grader (the box)."""

from __future__ import annotations

import os
import shutil

SHARED_TEMP = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")  # folders every user may write


def remove_tree(folder: str, keep_folder: bool = False) -> None:
    """``rm -rf folder`` (or only its contents) that also gets through folders their owner locked (chmod 000)."""

    def unlock(func, path, _exc) -> None:
        try:
            os.chmod(os.path.dirname(path), 0o700)
            if os.path.isdir(path) and not os.path.islink(path):
                os.chmod(path, 0o700)
                shutil.rmtree(path, onerror=unlock)
            else:
                func(path)
        except OSError:
            pass

    if not keep_folder:
        shutil.rmtree(folder, onerror=unlock)
        return
    for entry in os.listdir(folder):
        path = os.path.join(folder, entry)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, onerror=unlock)
        else:
            try:
                os.remove(path)
            except OSError:
                pass


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
