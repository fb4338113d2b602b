"""Which protections this machine allows, and the command line that applies them.

The sandbox is made of layers; each is used where the machine allows it and named in the
grader's protections line:

- always: time and memory limits, the worker's own process group, the OOM killer's first choice,
  leftovers killed after each module (the subreaper sees every orphan);
- the grader is root: a uid of the worker's own (``identity``); the Python install reachable by it
  and the grader's folders not (``runtime``); leftovers are every process of that uid;
- any user, where the kernel offers them: Landlock and a seccomp filter (``confine``);
- bubblewrap, where it starts: a private filesystem, no network, its own PID namespace;
- a grader that is neither root nor runs bubblewrap, where the kernel lets a user make one and counts processes per
  user namespace (Linux 5.14+): a user namespace of the worker's own, so that its processes count against a process
  limit of their own, not the user's.

``AUTOGRADER_NO_BWRAP=1``, ``AUTOGRADER_NO_LANDLOCK=1``, ``AUTOGRADER_NO_SECCOMP=1`` and ``AUTOGRADER_NO_USERNS=1``
switch a layer off (the tests grade the hostile corpus with each mode this machine can produce).
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from .. import settings
from ..settings import TMP_MB
from .errors import SandboxUnavailable
from .runtime import WORKER_DIR, Box, Interpreter
from .worker import procfs

INSIDE_WORKER_DIR = "/grader"
INSIDE_SUBMISSION = "/submission"
SYSTEM_DIRS = ("/usr", "/bin", "/lib", "/lib64", "/lib32", "/sbin")
PORTABLE_ENV = settings.AUTOGRADER_PORTABLE.name  # =1: a self-check takes the portable path (sandbox.portable)
LINUX_MODULES = ("fcntl", "termios", "resource")


@dataclass(frozen=True)
class Protections:
    """The layers the worker runs under on this machine."""

    bwrap: str | None
    is_root: bool
    landlock: int = 0      # Landlock ABI version in force, 0 for none
    seccomp: bool = False
    userns: bool = False   # whether a user may make a user namespace here (used where no bubblewrap and no root)

    @property
    def drop_user(self) -> bool:
        """A root grader always runs the worker as a uid of its own."""
        return self.is_root

    @property
    def cleanup(self) -> str:
        """How the worker finds its leftovers: its PID namespace, its own uid, or its descendants."""
        return "namespace" if self.bwrap else "uid" if self.is_root else "descendants"

    @property
    def own_user_namespace(self) -> bool:
        """Whether the worker enters a user namespace of its own (where nothing else counts its processes apart)."""
        return self.cleanup == "descendants" and self.userns

    @property
    def shared_process_count(self) -> bool:
        """Whether the worker's processes count against the same limit as the user's other programs: one worker's
        module that starts processes up to its limit leaves none for another worker of the same user."""
        return self.cleanup == "descendants" and not self.userns

    def describe(self) -> str:
        """One line for the grader's log: what is in force and what is not."""
        parts = ["time and memory limits", "own process group", "OOM killer picks the worker first",
                 "each test on streams of its own, the worker not dumpable, its state checked after each test"]
        parts.append(
            {
                "namespace": "leftover processes killed (PID namespace)",
                "uid": "leftover processes killed (every process of the sandbox uid)",
                "descendants": "leftover processes killed (all descendants, adopted as subreaper)",
            }[self.cleanup]
        )
        if self.drop_user:
            parts.append("own unprivileged uid per worker, grader's folders private")
        if self.own_user_namespace:
            parts.append("own user namespace per worker (its processes counted apart from the user's)")
        if self.bwrap:
            parts.append("bubblewrap (private filesystem, no network, own PID namespace)")
        if self.landlock:
            extra = ", signals and abstract sockets kept inside" if self.landlock >= 6 else ""
            parts.append(
                f"Landlock ABI {self.landlock} (reads: Python, worker code, staged modules; writes: one scratch "
                f"folder; no TCP{extra}; "
                "a nested domain per test)"
            )
        if self.seccomp:
            parts.append(
                "seccomp (no sockets, ptrace, namespaces, mounts, BPF, io_uring, page-cache probes; a test cannot "
                "signal the worker or change another process's scheduling or limits)"
            )
        missing = []
        if not self.bwrap:
            missing.append("bubblewrap")
        if not self.landlock:
            missing.append("Landlock")
        elif self.landlock < 6:
            missing.append("Landlock signal scoping (ABI 6)")
        if not self.seccomp:
            missing.append("seccomp")
        if not self.is_root:
            missing.append("a uid of its own (the grader is not root: the worker runs as this user)")
        if self.shared_process_count:
            missing.append("a user namespace of its own (its processes count against this user's process limit)")
        text = "sandbox: " + ", ".join(parts)
        return text + ("; not available: " + ", ".join(missing) if missing else "")

    @property
    def strength(self) -> str:
        """'isolated' when student code can reach nothing of the grader's, else 'weak' (see docs/threat_model.md)."""
        return "isolated" if self.bwrap or self.is_root or self.landlock >= 6 else "weak"


_EARLY: list[threading.Thread] = []


def detect_soon() -> None:
    """Start ``detect`` (and the tmpfs probe) on a thread: the probes are processes, which run while this one imports.

    Nothing where the portable path will be taken (``AUTOGRADER_PORTABLE=1``, not Linux)."""
    if _EARLY or os.environ.get(PORTABLE_ENV) == "1" or not sys.platform.startswith("linux"):
        return

    def probe() -> None:
        found = _detect()
        if found.bwrap:
            bwrap_sizes_tmpfs(found.bwrap)

    _EARLY.append(threading.Thread(target=probe, name="autograder-probes", daemon=True))
    _EARLY[0].start()


def detect() -> Protections:
    """Probe once per process; environment switches turn layers off (for tests)."""
    if _EARLY and _EARLY[0] is not threading.current_thread():
        _EARLY[0].join()  # the early probes: a second probing side by side would only cost time
    return _detect()


@functools.lru_cache(maxsize=1)
def _detect() -> Protections:
    is_root = os.geteuid() == 0
    bwrap = None if _off("BWRAP") else shutil.which("bwrap")
    kernel_probe = _start_kernel_probe()  # both probes at once
    if bwrap and not _bwrap_works(bwrap, is_root):
        bwrap = None
    kernel = _probe_kernel_layers(kernel_probe)
    landlock = 0 if _off("LANDLOCK") else int(kernel.get("landlock", 0))
    seccomp = False if _off("SECCOMP") else bool(kernel.get("seccomp"))
    userns = False if _off("USERNS") else bool(kernel.get("userns"))
    return Protections(bwrap=bwrap, is_root=is_root, landlock=landlock, seccomp=seccomp, userns=userns)


def _off(layer: str) -> bool:
    return os.environ.get(f"AUTOGRADER_NO_{layer}") == "1"


def _start_kernel_probe() -> subprocess.Popen | None:
    try:
        return subprocess.Popen(
            [sys.executable, "-I", "-B", str(WORKER_DIR / "confine.py"), "--probe"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd="/",
        )
    except OSError:
        return None


def _probe_kernel_layers(proc: subprocess.Popen | None = None) -> dict:
    """Apply Landlock, seccomp and a user namespace in a throwaway process (a container may refuse what the kernel
    has)."""
    proc = proc or _start_kernel_probe()
    if proc is None:
        return {}
    try:
        out, _ = proc.communicate(timeout=60)
        return json.loads(out.strip().splitlines()[-1]) if proc.returncode == 0 else {}
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return {}
    except (ValueError, IndexError):
        return {}


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


ROOT_CAPABILITIES = {"CAP_SETGID": 6, "CAP_SETUID": 7, "CAP_SYS_RESOURCE": 24}  # what a root worker keeps in bwrap
HOLDER_CODE = "import os, sys; os.write(1, b'.'); sys.stdin.buffer.read()"  # waits until the grader closes its stdin


def worker_command(protections: Protections, interpreter: Interpreter, box: Box, arguments: list[str]) -> list[str]:
    """The argv that starts one worker with ``arguments`` (``worker_arguments``) under ``protections``."""
    python = [interpreter.executable, "-I", "-B"]
    return (bwrap_command(protections, interpreter, box) if protections.bwrap else []) + python + arguments


def root_capabilities() -> dict[str, int]:
    """The capabilities a root worker keeps under bubblewrap until it drops to its uid, of those this process may hold
    (bubblewrap 0.8 asked to add one outside the bounding set keeps every capability instead)."""
    bounding = _bounding_set()
    return {name: number for name, number in ROOT_CAPABILITIES.items() if bounding >> number & 1}


def _bounding_set() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("CapBnd:"):
            return int(line.split()[1], 16)
    return 0


def holder_command(protections: Protections, interpreter: Interpreter, box: Box) -> list[str]:
    """Bubblewrap as ``worker_command`` starts it, around a holder instead of the worker: the holder is the PID
    namespace's init, prints one byte once it runs and ends when its stdin closes; a zygote's child joins its
    namespaces (``sandbox.zygote``)."""
    bwrap = bwrap_command(protections, interpreter, box)
    return [bwrap[0], "--as-pid-1", *bwrap[1:], interpreter.executable, "-I", "-S", "-c", HOLDER_CODE]


def worker_folders(protections: Protections, box: Box) -> tuple[str, str]:
    """Where the worker's code is and the folder it starts in, as the worker sees them."""
    if protections.bwrap:
        return INSIDE_WORKER_DIR, INSIDE_SUBMISSION
    return str(box.worker), "/"


def worker_arguments(
    protections: Protections,
    interpreter: Interpreter,
    box: Box,
    memory_mb: int,
    fd_in: int,
    fd_out: int,
    uid: int | None = None,
    gid: int | None = None,
) -> list[str]:
    """``main.py`` and its arguments, as the worker sees its folders."""
    worker_args = [
        "--fd-in",
        str(fd_in),
        "--fd-out",
        str(fd_out),
        "--memory-mb",
        str(memory_mb),
        "--cleanup",
        protections.cleanup,
    ]
    if uid is not None:
        worker_args += ["--uid", str(uid), "--gid", str(gid)]
    if protections.seccomp:
        worker_args.append("--seccomp")
    if protections.own_user_namespace:
        worker_args.append("--user-namespace")
    if protections.bwrap:
        reads = [*interpreter.roots, INSIDE_WORKER_DIR, INSIDE_SUBMISSION]
        submissions, scratch = INSIDE_SUBMISSION, "/tmp"
    else:
        reads = [*interpreter.roots, str(box.worker), str(box.submissions)]
        submissions, scratch = str(box.submissions), str(box.scratch)
    landlock = [arg for path in reads for arg in ("--landlock", path)] if protections.landlock else []
    code, _start = worker_folders(protections, box)
    return [f"{code}/main.py", "--submission", submissions, "--scratch", scratch] + landlock + worker_args


def bwrap_command(protections: Protections, interpreter: Interpreter, box: Box) -> list[str]:
    """Bubblewrap's part of the worker's command line: its mounts, namespaces and capabilities."""
    cmd = [protections.bwrap, "--perms", "1777"]
    if bwrap_sizes_tmpfs(protections.bwrap):
        cmd += ["--size", str(TMP_MB << 20)]
    cmd += ["--tmpfs", "/tmp"]
    for system_dir in SYSTEM_DIRS:
        if os.path.islink(system_dir):
            cmd += ["--symlink", os.readlink(system_dir), system_dir]
        elif os.path.isdir(system_dir):
            cmd += ["--ro-bind", system_dir, system_dir]
    cmd += [
        "--perms",
        "0755",
        "--dir",
        "/etc",
        "--ro-bind-try",
        "/etc/ld.so.cache",
        "/etc/ld.so.cache",
    ]  # how ctypes finds libseccomp
    made: set[str] = set()
    for root in interpreter.roots:
        for parent in reversed(Path(root).parents):
            if str(parent) != "/" and str(parent) not in made and str(parent) not in SYSTEM_DIRS:
                cmd += ["--perms", "0755", "--dir", str(parent)]
                made.add(str(parent))
        cmd += ["--ro-bind", root, root]
    cmd += [
        "--ro-bind", str(box.worker), INSIDE_WORKER_DIR,
        "--ro-bind", str(box.submissions), INSIDE_SUBMISSION,
        "--proc", "/proc", "--dev", "/dev",
        "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
        "--die-with-parent", "--new-session", "--chdir", INSIDE_SUBMISSION,
    ]
    if protections.is_root:
        cmd += ["--cap-drop", "ALL"]
        for name in root_capabilities():
            cmd += ["--cap-add", name]
    else:
        cmd += ["--unshare-user"]
    return cmd


def worker_env(interpreter: Interpreter, scratch: str) -> dict[str, str]:
    """A small, fixed environment: nothing of the grader's leaks into the worker."""
    return {
        **interpreter.env,
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": scratch,
        "TMPDIR": scratch,
        "LANG": "C.UTF-8",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def linux_sandbox_missing() -> str | None:
    """Why the Linux sandbox cannot run here, or None when it can."""
    if not sys.platform.startswith("linux"):
        return f"this is {sys.platform}, and the sandbox needs Linux"
    for name in LINUX_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            return f"this Python has no {name} module"
    if not hasattr(os, "fork"):
        return "this Python has no os.fork"
    if not procfs.pids():  # not even this process: /proc is missing or cannot be read
        return "/proc cannot be read"
    return None


def portable_reason() -> str | None:
    """Why a self-check takes the portable path (None: it uses the Linux sandbox)."""
    if os.environ.get(PORTABLE_ENV) == "1":
        return f"{PORTABLE_ENV}=1"
    return linux_sandbox_missing()


def refuse_unsandboxed() -> None:
    """Raise ``SandboxUnavailable`` where grading others' code could only run without the sandbox."""
    reason = portable_reason()
    if reason:
        raise SandboxUnavailable(
            f"refusing to grade untrusted code without the sandbox: {reason}. Grade on Linux (as root, "
            f"or with bubblewrap), without {PORTABLE_ENV}=1; only `check` (a student's own code) runs without it."
        )
