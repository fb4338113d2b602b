"""What the worker needs on disk: a Python the sandbox uid can start, its box, and the grader's folders kept private."""

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.sandbox import identity, runtime

root_only = pytest.mark.skipif(os.geteuid() != 0, reason="another uid needs root")


def test_reachable_follows_every_parent(tmp_path):
    inner = tmp_path / "a" / "b"
    inner.mkdir(parents=True)
    os.chmod(tmp_path, 0o755)
    os.chmod(tmp_path / "a", 0o755)
    os.chmod(inner, 0o755)
    assert runtime.reachable(inner) is runtime.reachable(tmp_path)  # pytest's base folder decides for both
    os.chmod(tmp_path / "a", 0o700)
    assert not runtime.reachable(inner)


@root_only
def test_the_sandbox_uid_can_start_the_chosen_python_and_import_torch():
    python = runtime.interpreter_for_others()
    lease = identity.lease()
    try:
        proc = subprocess.run([python.executable, "-I", "-c", "import torch, numpy, landlockpy, pyseccomp; print(torch.ones(2).sum().item())"],
                              user=lease.uid, group=lease.gid, extra_groups=[], env=dict(python.env, PATH="/usr/bin:/bin"),
                              cwd="/", capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0 and proc.stdout.strip() == "2.0", proc.stderr
    finally:
        lease.release()


@root_only
def test_a_mirror_never_writes_through_its_hard_links(tmp_path, monkeypatch):
    """The mirror's pyvenv.cfg is written anew: the real venv's file (a hard link source) keeps its contents."""
    monkeypatch.setattr(runtime, "CACHE", tmp_path / "cache")
    monkeypatch.setattr(runtime, "reachable", lambda path, need=0: False)  # as if the whole install were private
    import sys

    cfg = os.path.join(sys.prefix, "pyvenv.cfg")
    before = open(cfg).read() if os.path.exists(cfg) else None
    built = runtime._mirror()
    assert built.mirrored and os.path.exists(built.executable)
    if before is not None:
        assert open(cfg).read() == before


@root_only
def test_a_mirror_of_an_install_that_is_gone_is_removed_and_no_other(tmp_path, monkeypatch):
    """Every new venv (a fresh checkout, a CI run) gets a mirror of up to 1.6 GB: once its install is deleted, the next
    grader that uses a mirror removes it; one whose install still exists, or that is being built, stays."""
    import json

    cache = tmp_path / "cache"
    monkeypatch.setattr(runtime, "CACHE", cache)
    monkeypatch.setattr(runtime, "reachable", lambda path, need=0: False)
    built = runtime._mirror()
    ours = Path(built.executable).parents[2]
    assert json.loads((ours / "ready.json").read_text())["source"] == str(Path(sys.prefix).resolve())
    alive_install = tmp_path / "venv-still-here"
    alive_install.mkdir()
    mirrors = {}
    for name, spec in (("gone", {"source": str(tmp_path / "deleted-venv")}), ("alive", {"source": str(alive_install)}),
                       ("older", {}), ("building-x", None)):
        mirrors[name] = cache / f"python-{name}"
        (mirrors[name] / "base").mkdir(parents=True)
        if spec is not None:
            (mirrors[name] / "ready.json").write_text(json.dumps({"executable": "x", "roots": [], "env": {}, **spec}))
    runtime._mirror()
    assert not mirrors["gone"].exists()
    assert all(mirrors[name].exists() for name in ("alive", "older", "building-x")) and ours.exists()


@root_only
def test_box_lets_only_its_own_group_read_the_staged_modules(tmp_path):
    lease = identity.lease()
    box = runtime.Box.create(lease.uid, lease.gid)
    try:
        staged = box.submissions / "one"
        staged.mkdir()
        (staged / "m.py").write_text("x = 1\n")
        box.admit(staged)
        info = os.stat(staged / "m.py")
        assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (0, lease.gid, 0o640)
        assert stat.S_IMODE(os.stat(box.root).st_mode) == 0o711
        assert os.stat(box.scratch).st_uid == lease.uid and stat.S_IMODE(os.stat(box.scratch).st_mode) == 0o700
        other = identity.lease()
        try:
            for who, can in ((lease, True), (other, False)):
                proc = subprocess.run(["/bin/cat", str(staged / "m.py")], user=who.uid, group=who.gid, extra_groups=[], capture_output=True)
                assert (proc.returncode == 0) is can
        finally:
            other.release()
    finally:
        box.remove()
        lease.release()
    assert not box.root.exists()


@root_only
def test_make_private_takes_other_users_out():
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="private-test-", dir="/tmp"))  # pytest's own folders are private already
    try:
        os.chmod(folder, 0o755)
        assert runtime.reachable(folder, stat.S_IXOTH)
        assert runtime.make_private([folder]) == [str(folder)]
        assert not runtime.reachable(folder, stat.S_IXOTH)
        assert runtime.make_private([folder]) == []  # nothing left to do
    finally:
        os.rmdir(folder)


def test_make_private_leaves_the_python_install_alone():
    import sys

    assert runtime.make_private([sys.prefix]) == []


def test_the_python_roots_include_each_folder_a_link_to_the_interpreter_passes(tmp_path, monkeypatch):
    import sys

    (tmp_path / "home" / "bin").mkdir(parents=True)
    (tmp_path / "venv" / "bin").mkdir(parents=True)
    real = os.path.realpath(sys.executable)
    (tmp_path / "home" / "bin" / "python3").symlink_to(real)  # ~/bin/python3, as `python3 -m venv` was started
    (tmp_path / "venv" / "bin" / "python3").symlink_to(tmp_path / "home" / "bin" / "python3")
    (tmp_path / "venv" / "bin" / "python").symlink_to("python3")
    assert runtime._link_folders(str(tmp_path / "venv" / "bin" / "python")) == [
        str(tmp_path / "venv" / "bin"), str(tmp_path / "venv" / "bin"), str(tmp_path / "home" / "bin"), os.path.dirname(real)]
    monkeypatch.setattr(sys, "executable", str(tmp_path / "venv" / "bin" / "python"))
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "venv"))
    roots = runtime.python_roots()
    assert str(tmp_path / "home" / "bin") in roots and str(tmp_path / "venv") in roots
    assert str(tmp_path / "venv" / "bin") not in roots  # inside a root already


def test_a_box_carries_the_worker_s_bytecode_and_the_worker_loads_it():
    import compileall

    assert compileall.compile_dir(str(runtime.WORKER_DIR), quiet=1)
    box = runtime.Box.create()
    try:
        cached = sorted(p.name.split(".")[0] for p in (box.worker / "__pycache__").glob("*.pyc"))
        assert cached == sorted(n[:-3] for n in runtime.WORKER_FILES if n != "main.py")
        # As the worker starts (-I -B): the module comes from the box's bytecode, not from compiling its source.
        code = f"import sys; sys.path.insert(0, {str(box.worker)!r}); import wire"
        proc = subprocess.run([sys.executable, "-I", "-B", "-v", "-c", code], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert f"code object from '{box.worker / '__pycache__'}/wire." in proc.stderr
    finally:
        box.remove()


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_only_the_boxes_of_dead_processes_are_removed(tmp_path, monkeypatch):
    """kill -9 of a run skips every cleanup: its boxes (students' modules) stay in the temporary folder until the next
    run removes them. A live process's box, or a box whose name does not say its process, is never touched."""
    monkeypatch.setattr(runtime.tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(runtime, "TMP_FOLDERS", ())
    live = runtime.Box.create()
    assert live.root.parent == tmp_path and live.root.name.startswith(f"{runtime.BOX_PREFIX}{os.getpid()}-")
    dead = tmp_path / f"{runtime.BOX_PREFIX}{dead_pid()}-x1y2"
    (dead / "submissions" / "s").mkdir(parents=True)
    (dead / "submissions" / "s" / "qkv_arithmetic.py").write_text("# a student's module\n")
    os.chmod(dead / "submissions", 0o000)  # locked by the student's code: removed all the same
    zombie = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    zombie.kill()  # not waited for: a zombie, as a killed job whose parent died too stays where nothing reaps it
    while open(f"/proc/{zombie.pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z":
        pass
    undead = tmp_path / f"{runtime.BOX_PREFIX}{zombie.pid}-z0mb1e"
    undead.mkdir()
    unknown = [tmp_path / f"{runtime.BOX_PREFIX}{name}" for name in ("abc123", "12345678")]  # made before names held a pid
    for folder in unknown:
        folder.mkdir()
    assert sorted(runtime.remove_dead_boxes()) == sorted([dead, undead])
    assert not dead.exists() and live.root.is_dir() and all(folder.is_dir() for folder in unknown)
    zombie.wait()
    live.remove()
