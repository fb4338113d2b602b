"""Removing what student code wrote: locked folders go, mounts inside the scratch stay."""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.sandbox.worker import cleanup

REPO = Path(__file__).resolve().parents[3]


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
    code = f"import sys; sys.path.insert(0, {str(REPO)!r}); from autograder.sandbox.worker import cleanup; cleanup.remove_tree({str(scratch)!r}, keep_folder=True)"
    # The scratch is a tmpfs with a folder of the host bound inside it, writable (Landlock, not the mount, protects it).
    script = (f"mount -t tmpfs none {scratch} && mkdir -p {scratch}/project/venv && echo x > {scratch}/student.txt"
              f" && mount --bind {kept} {scratch}/project/venv && {sys.executable} -c \"{code}\" && ls -A {scratch}")
    proc = subprocess.run([unshare, "-rm", "sh", "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert (kept / "torch.py").read_text() == "precious"
    assert proc.stdout.split() == ["project"], f"left in the scratch: {proc.stdout.split()}"


def _deep(folder: Path, levels: int) -> None:
    """A chain of folders made with ``dir_fd``, as student code makes one deeper than any path may be long."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(levels):
        os.mkdir("d" * 200, dir_fd=fd)
        inner = os.open("d" * 200, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = inner
    with open(os.open("f", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd), "w") as f:
        f.write("x" * 5000)
    os.close(fd)


def test_a_tree_deeper_than_the_recursion_limit_and_any_path_is_removed(tmp_path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    _deep(scratch, sys.getrecursionlimit() + 200)  # 1200 levels of 200-character names: 240 kB of path
    cleanup.remove_tree(str(scratch), keep_folder=True)
    assert list(scratch.iterdir()) == []


def test_usage_counts_bytes_and_entries_and_stops_at_its_depth(tmp_path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "a").write_bytes(b"x" * 100_000)
    for i in range(30):
        os.link(scratch / "a", scratch / f"link{i}")
    used = cleanup.usage(str(scratch))
    assert used.entries == 32 and not used.too_deep and used.bytes >= 31 * 100_000
    _deep(scratch, cleanup.MAX_DEPTH + 5)
    deep = cleanup.usage(str(scratch))
    assert deep.too_deep and deep.entries <= 32 + cleanup.MAX_DEPTH + 1
    cleanup.remove_tree(str(scratch), keep_folder=True)
    assert list(scratch.iterdir()) == []


def test_usage_stops_counting_past_its_entry_cap(tmp_path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    for i in range(50):
        (scratch / f"f{i}").touch()
    assert cleanup.usage(str(scratch), max_entries=10).entries > 10


@pytest.mark.skipif(not Path("/proc/sysvipc/shm").exists() or os.geteuid() != 0, reason="needs /proc/sysvipc and root (a uid of its own)")
def test_sysv_ipc_objects_of_a_uid_are_found_and_removed() -> None:
    from autograder.sandbox import identity

    who = identity.lease()  # a uid nothing else uses: removing all its objects touches no one else's
    try:
        code = ("import ctypes; libc = ctypes.CDLL(None, use_errno=True); "
                "print(libc.shmget(0, 4096, 0o1600), libc.msgget(0, 0o1600))")  # IPC_PRIVATE, IPC_CREAT
        proc = subprocess.run(["/usr/bin/python3", "-I", "-c", code], user=who.uid, group=who.gid, extra_groups=[], cwd="/",
                              capture_output=True, text=True, timeout=60)
        shm, queue = (int(v) for v in proc.stdout.split())
        assert shm >= 0 and queue >= 0, proc.stderr
        assert {("shm", shm), ("msg", queue)} <= set(cleanup.sysv_ipc_of(who.uid))
        assert {("shm", shm), ("msg", queue)} <= set(cleanup.remove_sysv_ipc(who.uid))
        assert cleanup.sysv_ipc_of(who.uid) == []
    finally:
        who.release()


def test_usage_sees_behind_folders_made_unlistable() -> None:
    """A grader of the same user as student code is not blinded by chmod 0300 (scratch itself, or a folder in it); as
    root the check runs as a uid of its own, which root's own reads would not show."""
    import tempfile

    from autograder.sandbox import identity

    top = Path(tempfile.mkdtemp(prefix="usage-", dir="/tmp"))
    who = identity.lease() if os.geteuid() == 0 else None
    try:
        shutil.copy(Path(cleanup.__file__), top / "cleanup.py")
        os.chmod(top, 0o755)
        os.chmod(top / "cleanup.py", 0o644)
        code = ("import os, sys; sys.path.insert(0, sys.argv[1]); import cleanup\n"
                "scratch = os.path.join(sys.argv[1], 'scratch'); os.makedirs(os.path.join(scratch, 'hidden'))\n"
                "open(os.path.join(scratch, 'hidden', 'data'), 'wb').write(b'x' * 10000)\n"
                "os.chmod(os.path.join(scratch, 'hidden'), 0o300); os.chmod(scratch, 0o300)\n"
                "found = cleanup.usage(scratch); print(found.entries, found.bytes)")
        if who is not None:
            os.chown(top, who.uid, who.gid)
        user = {"user": who.uid, "group": who.gid, "extra_groups": []} if who is not None else {}
        proc = subprocess.run(["/usr/bin/python3" if who is not None else sys.executable, "-I", "-c", code, str(top)], cwd="/", capture_output=True, text=True, timeout=60, **user)
        entries, size = (int(v) for v in proc.stdout.split())
        assert entries == 3 and size >= 10000, proc.stderr
    finally:
        cleanup.remove_tree(str(top))
        if who is not None:
            who.release()


def _can_mark(folder: Path) -> bool:
    try:
        os.setxattr(folder, "user.probe", b"1")
        os.removexattr(folder, "user.probe")
        return True
    except OSError:
        return False


def test_emptying_a_folder_also_resets_what_of_the_folder_itself_a_test_can_set(tmp_path) -> None:
    # The folder's own timestamps and extended attributes survive a wipe of its contents: a counter across tests.
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "file").write_text("x")
    xattrs = _can_mark(scratch)
    if xattrs:
        os.setxattr(scratch, "user.counter", b"41")
    os.utime(scratch, ns=(42_000_000_000, 42_000_000_000))
    cleanup.empty_folder(str(scratch))
    info = os.stat(scratch)
    assert os.listdir(scratch) == [] and (info.st_mtime_ns, info.st_atime_ns) == (cleanup.FOLDER_TIME_NS,) * 2
    assert not xattrs or os.listxattr(scratch) == []


def test_the_view_of_a_folder_sees_its_own_time_and_attributes(tmp_path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    cleanup.empty_folder(str(scratch))
    before = cleanup.view(str(scratch))
    assert cleanup.view(str(scratch)) == before
    os.utime(scratch, ns=(7, 7))
    assert cleanup.view(str(scratch)) != before
    cleanup.empty_folder(str(scratch))
    assert cleanup.view(str(scratch)) == before
    if _can_mark(scratch):
        os.setxattr(scratch, "user.mark", b"1")
        os.utime(scratch, ns=(cleanup.FOLDER_TIME_NS,) * 2)
        assert cleanup.view(str(scratch)) != before


KEYS = """
import ctypes, json, sys
sys.path.insert(0, {worker!r})
import cleanup
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
number = cleanup.KEYCTL_SYSCALL[__import__("platform").machine()]
libc.syscall(number, 1, None)  # a session keyring of this process's own (KEYCTL_JOIN_SESSION_KEYRING), as a worker's
added = libc.syscall({add_key}, b"user", b"hx-mark", b"41", 2, ctypes.c_long(cleanup.KEYRINGS["session"]))
size = lambda: libc.syscall(number, 11, ctypes.c_long(cleanup.KEYRINGS["session"]), None, 0)  # KEYCTL_READ: its length
before = size()
renewed = cleanup.fresh_keyrings(own_uid=False)  # this test's uid is the suite's: its keyrings are left alone
print(json.dumps([added > 0, before, renewed, size()]))
"""


@pytest.mark.skipif(platform.machine() not in ("x86_64", "aarch64"), reason="keyctl's number is known for x86_64 and aarch64")
def test_a_key_left_in_the_session_keyring_does_not_reach_the_next_test(tmp_path) -> None:
    # A key outlives the process that added it: the next test's process, forked with the same session keyring, would read it.
    add_key = {"x86_64": 248, "aarch64": 217}[platform.machine()]
    code = KEYS.format(worker=str(Path(cleanup.__file__).parent), add_key=add_key)
    proc = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    added, before, renewed, after = json.loads(proc.stdout)
    if not added:
        pytest.skip("this machine refuses add_key (a seccomp profile of the container)")
    assert before > 0 and renewed == ["session"] and after == 0, (before, renewed, after)
