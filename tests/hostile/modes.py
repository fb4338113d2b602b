"""The sandbox modes this machine can produce, and how to run the grader in each.

A mode is a set of layers switched off (``AUTOGRADER_NO_*``), how workers start (``AUTOGRADER_ZYGOTE``) and the user the
grader runs as.
When the suite runs as root, the "user" modes run the grader as an unprivileged uid of their
own (one per graded case, so process limits never collide), with a Python that user can read
and a venv whose folders it owns (as on a staff laptop, where the venv is the user's own).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

from autograder.sandbox import policy, runtime

USER_UID_BLOCKS = range(63000, 54000, -1000)  # blocks of uids the "user" modes run the grader as (the sandbox leases 64000 up)
ALL_OFF = {"AUTOGRADER_NO_BWRAP": "1", "AUTOGRADER_NO_LANDLOCK": "1", "AUTOGRADER_NO_SECCOMP": "1",
           "AUTOGRADER_NO_USERNS": "1"}


_LEASE: list[int] = []  # this process's block of uids and the file descriptor that holds it


def user_uid_base() -> int:
    """The first of 1000 uids this test process may run graders as: a block no other process on this machine holds (two
    suites, or two test workers, grading ``attack_kill`` as the same uid would kill each other's graders)."""
    import fcntl

    if not _LEASE:
        folder = Path("/run" if os.access("/run", os.W_OK) else "/tmp") / "autograder-test-uids"
        folder.mkdir(mode=0o700, exist_ok=True)
        for base in USER_UID_BLOCKS:
            fd = os.open(folder / str(base), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            _LEASE.extend([base, fd])  # held until this process ends
            break
        else:
            raise RuntimeError(f"every block of test uids in {list(USER_UID_BLOCKS)} is held by another test run")
    return _LEASE[0]


@dataclass(frozen=True)
class Mode:
    """One way of running the grader, and the layers in force there."""

    name: str
    env: dict[str, str] = field(default_factory=dict)
    as_user: bool = False
    protections: policy.Protections | None = None

    def __str__(self) -> str:
        return self.name


def users_can_bwrap() -> bool:
    """Whether an unprivileged user can start bubblewrap here (it needs user namespaces, which some kernels refuse)."""
    bwrap = shutil.which("bwrap")
    if bwrap is None or os.geteuid() != 0:
        return False
    spare = user_uid_base() + 999  # a uid of this process's block that no grader of the suite runs as
    cmd = [bwrap, "--ro-bind", "/", "/", "--unshare-net", "--unshare-pid", "--unshare-user", "--die-with-parent", "true"]
    try:
        return subprocess.run(cmd, user=spare, group=spare, extra_groups=[], capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def protections_under(env: dict[str, str], as_user: bool) -> policy.Protections:
    """What ``policy.detect`` says in a grader started with ``env`` (as another user if ``as_user``)."""
    code = ("import json; from autograder.sandbox import policy; p = policy.detect(); "
            "print(json.dumps([p.bwrap, p.is_root, p.landlock, p.seccomp, p.userns]))")
    full = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRADER_NO_")} | env
    proc = subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    bwrap, is_root, landlock, seccomp, userns = json.loads(proc.stdout.strip().splitlines()[-1])
    if as_user:
        is_root = False
        bwrap = bwrap if bwrap and users_can_bwrap() else None
    return policy.Protections(bwrap=bwrap, is_root=is_root, landlock=landlock, seccomp=seccomp, userns=userns)


def available() -> list[Mode]:
    """Every mode this machine produces, strongest first; a mode that equals an earlier one is left out."""
    root = os.geteuid() == 0
    suite_off = {k: v for k, v in os.environ.items() if k.startswith("AUTOGRADER_NO_")}
    wanted = [("bwrap", {}, False)]
    if root:
        # Root without namespaces is Gradescope's usual case, where every worker starts afresh; under bubblewrap and
        # in root-bare the workers are forked from the zygote, as a root grader's staff runs fork them.
        wanted += [("root", {"AUTOGRADER_NO_BWRAP": "1", "AUTOGRADER_ZYGOTE": "0"}, False),
                   ("root-bare", dict(ALL_OFF), False)]
    # A staff laptop: a normal user, with bubblewrap (user namespaces) where the machine allows it, and without; in
    # `user`, where seccomp and Landlock 6+ are in force, the workers are forked from a zygote of that user, and each
    # enters a user namespace of its own where the kernel allows; `user-bare` has none of these layers.
    wanted += [("user-bwrap", {}, True), ("user", {"AUTOGRADER_NO_BWRAP": "1"}, True), ("user-bare", dict(ALL_OFF), True)]
    modes, seen = [], set()
    for name, env, as_user in wanted:
        env = suite_off | env
        found = protections_under(env, as_user and root)
        if name.endswith("bwrap") and not found.bwrap:
            continue
        key = (found.bwrap is not None, found.is_root, found.landlock, found.seccomp, found.own_user_namespace)
        if key in seen:
            continue
        seen.add(key)
        modes.append(Mode(name, env, as_user and root, found))
    return modes


def user_python(folder: Path, uid: int) -> tuple[str, dict[str, str]]:
    """A venv owned by ``uid`` in ``folder`` (its files hard links to ours, its folders the user's), on a Python it can read."""
    base = runtime.interpreter_for_others()
    venv = folder / "venv"
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    target = venv / "lib" / version / "site-packages"
    target.parent.mkdir(parents=True)
    try:
        shutil.copytree(site, target, symlinks=True, copy_function=os.link)
    except OSError:  # another filesystem: a symlink keeps the test cheap (the venv is then not the user's)
        shutil.rmtree(target, ignore_errors=True)
        os.symlink(site, target)
    (venv / "bin").mkdir()
    base_python = Path(base.executable).resolve()
    os.symlink(base_python, venv / "bin" / "python")
    (venv / "pyvenv.cfg").write_text(f"home = {base_python.parent}\ninclude-system-site-packages = false\n"
                                     f"version = {sys.version.split()[0]}\n", encoding="utf-8")
    chown_tree(folder, uid)
    return str(venv / "bin" / "python"), dict(base.env)


def chown_tree(folder: Path, uid: int) -> None:
    """Give ``uid`` the folders under ``folder`` (and the files written for it, not hard links to ours)."""
    for dirpath, dirnames, filenames in os.walk(folder):
        os.lchown(dirpath, uid, uid)
        for name in filenames + dirnames:
            path = Path(dirpath, name)
            info = path.lstat()
            if path.is_symlink() or info.st_nlink > 1:
                continue
            os.lchown(path, uid, uid)
