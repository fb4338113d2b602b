"""A worker's own cgroup: where it can be made (fake trees), what it counts (a child reaped unseen), and that it leaves
nothing behind (this machine, where the grader may make one)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.sandbox import cpu_group
from autograder.sandbox.cpu_group import CpuGroup
from autograder.sandbox.worker import procfs

HERE = cpu_group.where()
needs_a_group = pytest.mark.skipif(HERE is None, reason="this machine gives this process no cgroup folder it may write")

# Ignores SIGCHLD, so its child is reaped by the kernel and its CPU never reaches the parent's figures in /proc.
UNSEEN_CHILD = """
import os, signal, sys, time
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
sys.stdin.readline()
child = os.fork()
if child == 0:
    end = time.process_time() + 0.4
    while time.process_time() < end:
        pass
    os._exit(0)
try:
    os.waitpid(child, 0)  # returns once the kernel reaped it (SIGCHLD ignored): ECHILD, and no times added here
except ChildProcessError:
    pass
print("done", flush=True)
sys.stdin.readline()
"""


def _fake_tree(tmp_path: Path, version: int, writable: bool = True) -> tuple[str, str]:
    mount = tmp_path / ("cpuacct" if version == 1 else "unified")
    own = mount / "grader"
    own.mkdir(parents=True)
    (own / ("cpuacct.usage" if version == 1 else "cpu.stat")).write_text("0\n" if version == 1 else "usage_usec 0\n")
    (own / ("tasks" if version == 1 else "cgroup.procs")).write_text("")
    if not writable:
        os.chmod(own, 0o555)
    line = (f"30 20 0:26 / {mount} rw - cgroup cgroup rw,cpuacct" if version == 1
            else f"31 20 0:27 / {mount} rw - cgroup2 cgroup2 rw")
    return line + "\n", ("2:cpuacct:/grader\n" if version == 1 else "0::/grader\n")


def test_a_worker_group_is_made_in_this_process_s_own_cgroup(tmp_path):
    (tmp_path / "v1").mkdir()
    (tmp_path / "v2").mkdir()
    assert cpu_group.where(*_fake_tree(tmp_path / "v1", 1)) == (tmp_path / "v1" / "cpuacct" / "grader", 1)
    assert cpu_group.where(*_fake_tree(tmp_path / "v2", 2)) == (tmp_path / "v2" / "unified" / "grader", 2)
    assert cpu_group.where("", "") is None  # no cgroup mounted: the CPU is read in /proc


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write any folder")
def test_no_group_where_the_folder_is_not_this_user_s(tmp_path):
    assert cpu_group.where(*_fake_tree(tmp_path, 1, writable=False)) is None


def test_the_switch_turns_it_off(monkeypatch, tmp_path):
    monkeypatch.setenv("AUTOGRADER_NO_CGROUP", "1")
    assert cpu_group.where(*_fake_tree(tmp_path, 1)) is None


@needs_a_group
def test_a_child_reaped_unseen_is_counted_and_the_group_leaves_no_folder():
    group = CpuGroup.create("test")
    assert group is not None and group.folder.is_dir()
    proc = subprocess.Popen([sys.executable, "-c", UNSEEN_CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    try:
        assert group.adopt(proc.pid)
        before = group.cpu_seconds()
        proc.stdin.write("go\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == "done\n"
        counted = group.cpu_seconds() - before
        seen = sum(procfs.cpu_seconds(proc.pid))  # the parent's own and its reaped children's, from /proc
        assert counted >= 0.35, counted
        assert seen < 0.2, seen  # what /proc alone would have said
    finally:
        proc.stdin.write("end\n")
        proc.stdin.flush()
        proc.wait(timeout=10)
    assert group.remove() and not group.folder.exists()


@needs_a_group
def test_a_dead_grader_s_empty_groups_are_removed_and_a_live_one_s_kept():
    base, _version = HERE
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = base / f"{cpu_group.PREFIX}{int(dead.stdout)}-gone"
    live = base / f"{cpu_group.PREFIX}{os.getpid()}-alive"
    stale.mkdir()
    live.mkdir()
    try:
        cpu_group.remove_stale(base)
        assert not stale.exists() and live.exists()
    finally:
        for folder in (stale, live):
            if folder.exists():
                folder.rmdir()


BUSY_THREAD = """
import sys, threading, time
def spin():
    end = time.thread_time() + 0.4
    while time.thread_time() < end:
        pass
thread = threading.Thread(target=spin)
thread.start()
print("started", flush=True)
thread.join()
print("done", flush=True)
sys.stdin.readline()
"""


@pytest.mark.skipif(HERE is None or HERE[1] != 1, reason="cgroup v1 only: v2 moves whole processes")
def test_only_the_main_thread_joins_so_the_first_process_s_other_threads_are_never_counted():
    group = CpuGroup.create("thread")
    proc = subprocess.Popen([sys.executable, "-c", BUSY_THREAD], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout.readline() == "started\n"
        assert group.adopt(proc.pid)
        before = group.cpu_seconds()
        assert proc.stdout.readline() == "done\n"
        assert group.cpu_seconds() - before < 0.05  # the spinning thread stayed outside
    finally:
        proc.stdin.write("end\n")
        proc.stdin.flush()
        proc.wait(timeout=10)
        group.remove()
