"""Which protections this machine allows, and the command line that applies them."""

from __future__ import annotations

import functools
import os
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

TMP_MB = 64  # the worker's private /tmp lives in memory: cap it where bubblewrap can, or files there escape the memory limit
SANDBOX_UID = 65534
SANDBOX_GID = 65534
WORKER_DIR = Path(__file__).resolve().parent
INSIDE_WORKER_DIR = "/grader"
INSIDE_SUBMISSION = "/submission"


@dataclass(frozen=True)
class Protections:
    """What the worker runs under: bubblewrap (private filesystem, no network) and/or another user."""

    bwrap: str | None
    drop_user: bool
    is_root: bool

    def describe(self) -> str:
        """One line for the grader's log: what is in force and what is not."""
        parts = ["time and memory limits", "own process group"]
        if self.bwrap:
            parts.append("bubblewrap (private filesystem, no network, own PID namespace)")
        if self.drop_user:
            parts.append(f"unprivileged user {SANDBOX_UID}")
        missing = []
        if not self.bwrap:
            missing.append("bubblewrap unavailable: the worker can read what this user can read")
        if self.is_root and not self.drop_user:
            missing.append("the worker keeps root (the Python install is not readable by an unprivileged user)")
        text = "sandbox: " + ", ".join(parts)
        return text + ("; " + "; ".join(missing) if missing else "")


@functools.lru_cache(maxsize=1)
def detect() -> Protections:
    """Probe once per process; ``AUTOGRADER_NO_BWRAP=1`` forces the weaker mode (for tests)."""
    is_root = os.geteuid() == 0
    bwrap = None if os.environ.get("AUTOGRADER_NO_BWRAP") == "1" else shutil.which("bwrap")
    if bwrap and not _bwrap_works(bwrap, is_root):
        bwrap = None
    drop_user = is_root and (bwrap is not None or _readable_by_others(Path(sys.base_prefix)))
    return Protections(bwrap=bwrap, drop_user=drop_user, is_root=is_root)


def _bwrap_works(bwrap: str, is_root: bool) -> bool:
    cmd = [bwrap, "--ro-bind", "/", "/", "--unshare-net", "--unshare-pid", "--die-with-parent"]
    if not is_root:
        cmd.append("--unshare-user")
    try:
        return subprocess.run(cmd + ["true"], capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@functools.lru_cache(maxsize=4)
def bwrap_sizes_tmpfs(bwrap: str) -> bool:
    """Whether this bubblewrap can cap a tmpfs (``--size``: bubblewrap 0.7 and later, and not when installed setuid)."""
    cmd = [bwrap, "--ro-bind", "/", "/", "--size", str(1 << 20), "--tmpfs", "/tmp"]
    if os.geteuid() != 0:
        cmd.append("--unshare-user")
    try:
        return subprocess.run(cmd + ["true"], capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _readable_by_others(path: Path) -> bool:
    for p in [path, *path.parents]:
        try:
            if not os.stat(p).st_mode & stat.S_IXOTH:
                return False
        except OSError:
            return False
    return True


def python_roots() -> list[str]:
    """Directories the worker's Python needs: the environment and the interpreter it is built on."""
    roots = {os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix)}
    exe_dir = os.path.dirname(os.path.realpath(sys.executable))
    if not any(exe_dir.startswith(r + os.sep) for r in roots):
        roots.add(exe_dir)
    return sorted(roots)


def worker_command(
    protections: Protections, submission: Path, memory_mb: int, fd_in: int, fd_out: int
) -> list[str]:
    """The argv that starts one worker serving ``submission`` under ``protections``."""
    worker_args = ["--fd-in", str(fd_in), "--fd-out", str(fd_out), "--memory-mb", str(memory_mb)]
    if protections.drop_user:
        worker_args += ["--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_GID)]
    python = [sys.executable, "-I", "-B"]
    if not protections.bwrap:
        return python + [str(WORKER_DIR / "worker.py"), "--submission", str(submission)] + worker_args
    worker_args += ["--own-pid-namespace"]
    cmd = [protections.bwrap, "--perms", "1777"]
    if bwrap_sizes_tmpfs(protections.bwrap):
        cmd += ["--size", str(TMP_MB << 20)]
    cmd += ["--tmpfs", "/tmp"]
    for system_dir in ("/usr", "/bin", "/lib", "/lib64", "/lib32", "/sbin"):
        if os.path.islink(system_dir):
            cmd += ["--symlink", os.readlink(system_dir), system_dir]
        elif os.path.isdir(system_dir):
            cmd += ["--ro-bind", system_dir, system_dir]
    made: set[str] = set()
    for root in python_roots():
        for parent in reversed(Path(root).parents):
            if str(parent) != "/" and str(parent) not in made and not _is_system(parent):
                cmd += ["--perms", "0755", "--dir", str(parent)]
                made.add(str(parent))
        cmd += ["--ro-bind", root, root]
    cmd += [
        "--ro-bind", str(WORKER_DIR), INSIDE_WORKER_DIR,
        "--ro-bind", str(submission), INSIDE_SUBMISSION,
        "--proc", "/proc", "--dev", "/dev",
        "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
        "--die-with-parent", "--new-session", "--chdir", INSIDE_SUBMISSION,
    ]
    if protections.is_root:
        cmd += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        cmd += ["--unshare-user"]
    inside_python = [sys.executable, "-I", "-B", f"{INSIDE_WORKER_DIR}/worker.py"]
    return cmd + inside_python + ["--submission", INSIDE_SUBMISSION] + worker_args


def _is_system(path: Path) -> bool:
    return str(path) in ("/usr", "/bin", "/lib", "/lib64", "/lib32", "/sbin")


def worker_env() -> dict[str, str]:
    """A small, fixed environment: nothing of the grader's leaks into the worker."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": "/tmp",
        "LANG": "C.UTF-8",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
