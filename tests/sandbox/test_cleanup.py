"""Removing what student code wrote: locked folders go, mounts inside the scratch stay."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.sandbox import cleanup

REPO = Path(__file__).resolve().parents[2]


def test_contents_go_and_the_folder_stays(tmp_path) -> None:
    scratch = tmp_path / "scratch"
    (scratch / "a" / "b").mkdir(parents=True)
    (scratch / "a" / "b" / "f.txt").write_text("x")
    (scratch / "top.txt").write_text("y")
    os.symlink("/etc/hostname", scratch / "link")
    cleanup.remove_tree(str(scratch), keep_folder=True)
    assert scratch.is_dir() and list(scratch.iterdir()) == []
    assert Path("/etc/hostname").exists()


def test_a_locked_folder_is_removed_too(tmp_path) -> None:
    locked = tmp_path / "scratch" / "locked"
    locked.mkdir(parents=True)
    (locked / "f.txt").write_text("x")
    locked.chmod(0)
    cleanup.remove_tree(str(tmp_path / "scratch"))
    assert not (tmp_path / "scratch").exists()


def test_what_is_mounted_inside_the_scratch_is_left_alone(tmp_path) -> None:
    """As under bubblewrap when the project lives under /tmp: its venv is bound inside the sandbox's /tmp."""
    unshare = shutil.which("unshare")
    if unshare is None or subprocess.run([unshare, "-rm", "true"], capture_output=True).returncode != 0:
        pytest.skip("cannot make a private mount namespace here (unshare -rm refused)")
    kept = tmp_path / "project" / "venv"
    kept.mkdir(parents=True)
    (kept / "torch.py").write_text("precious")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    code = f"import sys; sys.path.insert(0, {str(REPO)!r}); from autograder.sandbox import cleanup; cleanup.remove_tree({str(scratch)!r}, keep_folder=True)"
    # The scratch is a tmpfs with a folder of the host bound inside it, writable (Landlock, not the mount, protects it).
    script = (f"mount -t tmpfs none {scratch} && mkdir -p {scratch}/project/venv && echo x > {scratch}/student.txt"
              f" && mount --bind {kept} {scratch}/project/venv && {sys.executable} -c \"{code}\" && ls -A {scratch}")
    proc = subprocess.run([unshare, "-rm", "sh", "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert (kept / "torch.py").read_text() == "precious"
    assert proc.stdout.split() == ["project"], f"left in the scratch: {proc.stdout.split()}"
