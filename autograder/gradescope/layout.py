"""The /autograder folder as Gradescope lays it out for one submission, made and put back exclusively.

Gradescope fixes the path, so two emulations cannot run at once: ``exclusive_root`` takes a
machine-wide lock, moves aside whatever /autograder held, and puts it back afterwards.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import stat
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..grading.submission import ZIP_ERRORS
from ..settings import MAX_MEMBER_BYTES

ROOT = Path("/autograder")
LOCK_FILE = Path("/tmp/autograder-gradescope-emulation.lock")
MARKER = ".made-by-emulation"  # a folder left behind by an emulation that was killed is ours to remove


class LayoutError(Exception):
    """/autograder cannot be laid out here; the message names the problem and the fix."""


@contextmanager
def exclusive_root(root: Path = ROOT, lock_file: Path = LOCK_FILE) -> Iterator[Path]:
    """An empty ``root`` that only this process uses until the block ends; what was there before comes back."""
    if not os.access(root.parent, os.W_OK):
        raise LayoutError(
            f"laying out {root} needs write access to {root.parent} (you are uid {os.geteuid()}); Gradescope runs "
            "the autograder as root: run as root, e.g. `sudo make gradescope`"
        )
    with open(lock_file, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        backup = _move_aside(root)
        root.mkdir(mode=0o755)
        (root / MARKER).touch()
        try:
            yield root
        finally:
            shutil.rmtree(root, ignore_errors=True)
            if backup is not None:
                backup.rename(root)


def _move_aside(root: Path) -> Path | None:
    if not (root.exists() or root.is_symlink()):
        return None
    if root.is_dir() and not root.is_symlink() and (root / MARKER).exists():
        shutil.rmtree(root)
        return None
    backup = root.with_name(f"{root.name}.before-emulation-{os.getpid()}")
    root.rename(backup)
    return backup


def lay_out(root: Path, autograder_zip: Path, submission: Path) -> None:
    """Fill ``root`` as Gradescope does: source/ (the zip), run_autograder, submission/, results/,
    submission_metadata.json."""
    source = root / "source"
    try:
        with zipfile.ZipFile(autograder_zip) as zf:
            zf.extractall(source)
    except ZIP_ERRORS as exc:
        raise LayoutError(f"{autograder_zip} cannot be unpacked ({exc}); build it again with `python -m autograder "
                          "build`") from None
    if not (source / "run_autograder").is_file():
        raise LayoutError(f"{autograder_zip} holds no run_autograder, so it is not a Gradescope autograder zip; build "
                          "one with `python -m autograder build`")
    shutil.copy(source / "run_autograder", root / "run_autograder")
    os.chmod(root / "run_autograder", 0o755)
    target = root / "submission"
    target.mkdir()
    if submission.is_dir():
        _copy_tree(submission, target)
    elif zipfile.is_zipfile(submission):
        _unpack_upload(submission, target)
    else:
        shutil.copy(submission, target / submission.name)  # a single uploaded file stays as it is
    (root / "results").mkdir()
    metadata = {"id": 0, "assignment": {"title": "emulated"}, "users": [], "previous_submissions": []}
    (root / "submission_metadata.json").write_text(json.dumps(metadata))


def _copy_tree(src: Path, dst: Path) -> None:
    """Copy a submission folder keeping what a hostile one holds: symlinks stay links, FIFOs stay FIFOs."""
    for entry in os.scandir(src):
        target = dst / entry.name
        mode = entry.stat(follow_symlinks=False).st_mode
        if entry.is_symlink():
            os.symlink(os.readlink(entry.path), target)
        elif stat.S_ISDIR(mode):
            target.mkdir()
            _copy_tree(Path(entry.path), target)
        elif stat.S_ISFIFO(mode):
            os.mkfifo(target)
        elif stat.S_ISREG(mode):
            shutil.copyfile(entry.path, target)


def _unpack_upload(upload: Path, dst: Path) -> None:
    """Unpack an uploaded zip as Gradescope does, safely: no paths outside ``dst``, no member over MAX_MEMBER_BYTES."""
    with zipfile.ZipFile(upload) as zf:
        for info in zf.infolist():
            name = Path(info.filename)
            if info.is_dir() or name.is_absolute() or ".." in name.parts or info.file_size > MAX_MEMBER_BYTES:
                continue
            target = dst / name
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                with zf.open(info) as src, open(target, "wb") as out:
                    out.write(src.read(MAX_MEMBER_BYTES + 1)[:MAX_MEMBER_BYTES])
            except ZIP_ERRORS:
                target.unlink(missing_ok=True)
