import os
import subprocess
import sys

import pytest

from autograder.sandbox.worker import procfs

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")


def test_this_process_as_proc_shows_it():
    me = os.getpid()
    assert me in procfs.pids()
    info = procfs.stat(me)
    assert (info.state, info.ppid, info.session) == ("R", os.getppid(), os.getsid(0))
    status = procfs.status(me)
    assert status.uid == os.getuid() and status.state == "R" and status.threads >= 1
    assert status.nspids[-1] == me and status.vm_size_kb > 0
    assert procfs.status("self").nspids == status.nspids
    assert procfs.owner(me) == os.geteuid()
    os.environ["PROCFS_TEST"] = "not at start"  # /proc shows the environment the process started with
    assert f"PATH={os.environ['PATH']}".encode() in procfs.environ(me)
    assert b"PROCFS_TEST=not at start" not in procfs.environ(me)


def test_an_environment_longer_than_one_read_comes_back_whole():
    # /proc gives a long file a page or so per read: every entry, the last one too, must come back.
    long = "x" * 100_000  # one string may hold at most 128 KiB
    child = subprocess.Popen([sys.executable, "-c", "import time; print('ready', flush=True); time.sleep(30)"],
                             env={"FIRST": "1", "LONG": long, "LONGER": long, "LAST": "end"}, stdout=subprocess.PIPE)
    try:
        assert child.stdout.readline() == b"ready\n"  # started: /proc shows the environment it was given
        found = procfs.environ(child.pid)
        assert found is not None and f"LONGER={long}".encode() in found and b"LAST=end" in found, [e[:9] for e in found]
    finally:
        child.kill()
        child.wait()
        child.stdout.close()


def test_a_name_with_spaces_and_parentheses_is_not_a_field(tmp_path):
    odd = tmp_path / "a) b ) (c"
    odd.symlink_to(sys.executable)
    child = subprocess.Popen([odd, "-c", "import time; time.sleep(30)"])
    try:
        info = procfs.stat(child.pid)
        assert info.ppid == os.getpid() and info.session == os.getsid(0) and info.state in ("R", "S")
    finally:
        child.kill()
        child.wait()


def test_a_zombie_and_a_process_gone():
    child = subprocess.Popen(["true"])
    os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)  # ended, not reaped
    assert procfs.stat(child.pid).state == "Z" and procfs.status(child.pid).state == "Z"
    assert procfs.status(child.pid).vm_size_kb is None
    child.wait()
    assert child.pid not in procfs.pids()
    assert (procfs.stat(child.pid), procfs.status(child.pid), procfs.owner(child.pid), procfs.environ(child.pid)) == (None,) * 4


def test_no_proc(monkeypatch, tmp_path):
    monkeypatch.setattr(procfs, "PROC", str(tmp_path / "none"))
    me = os.getpid()
    assert procfs.pids() == []
    assert (procfs.stat(me), procfs.status(me), procfs.owner(me), procfs.environ(me)) == (None,) * 4


def test_the_memory_map_lists_heap_anonymous_and_file_mappings():
    import mmap

    anon = mmap.mmap(-1, 1 << 20)
    regions = procfs.memory_map("self")
    address = next(low for low, high, perms, path in regions if path == "" and perms.startswith("rw"))
    assert address > 0 and any(path == "[heap]" for *_, path in regions) and any(path.endswith(".so") or "python" in path for *_, path in regions)
    assert all(low < high for low, high, *_ in regions)
    anon.close()
    assert procfs.memory_map(2**31 - 1) == []  # no such process


def test_children_are_those_of_every_thread_zombies_included():
    import threading

    sleeper = subprocess.Popen(["sleep", "30"])
    ended = subprocess.Popen(["true"])
    os.waitid(os.P_PID, ended.pid, os.WEXITED | os.WNOWAIT)  # a zombie is still a child until it is reaped
    from_thread = []
    started, finish = threading.Event(), threading.Event()

    def fork_from_a_thread():
        from_thread.append(subprocess.Popen(["sleep", "30"]))
        started.set()
        finish.wait()

    thread = threading.Thread(target=fork_from_a_thread)
    thread.start()
    started.wait()
    try:
        listed = procfs.children(os.getpid())
        if listed is None:
            pytest.skip("this kernel does not list children (CONFIG_PROC_CHILDREN)")
        assert {sleeper.pid, ended.pid, from_thread[0].pid} <= set(listed)
        by_parent = {pid for pid in procfs.pids() if (info := procfs.stat(pid)) is not None and info.ppid == os.getpid()}
        assert set(listed) == by_parent
    finally:
        finish.set()
        thread.join()
        for child in (sleeper, from_thread[0]):
            child.kill()
            child.wait()
        ended.wait()
    assert procfs.children(2**22 + 1) is None  # no such process


def test_no_children_where_proc_does_not_list_them(monkeypatch, tmp_path):
    (tmp_path / "1" / "task" / "1").mkdir(parents=True)  # a task folder without a children file
    monkeypatch.setattr(procfs, "PROC", str(tmp_path))
    assert procfs.children(1) is None


def test_cpu_seconds_count_every_thread_and_the_children_reaped_and_the_main_thread_s_wait():
    import threading
    import time

    def burn(seconds):
        end = time.thread_time() + seconds
        while time.thread_time() < end:
            pass

    slack = 2 * procfs._TICK  # an ended thread's time is in clock ticks, rounded down
    own, reaped = procfs.cpu_seconds(os.getpid())
    helper = threading.Thread(target=burn, args=(0.2,))
    helper.start()
    helper.join()  # an ended thread's time stays counted
    assert procfs.cpu_seconds(os.getpid())[0] - own >= 0.2 - slack
    pid = os.fork()
    if pid == 0:
        burn(0.2)
        os._exit(0)
    while procfs.stat(pid).state != "Z":
        time.sleep(0.01)
    assert procfs.cpu_seconds(pid)[0] >= 0.2 - slack  # a zombie still says what it used
    os.waitpid(pid, 0)
    assert procfs.cpu_seconds(os.getpid())[1] - reaped >= 0.2 - slack  # once reaped, its parent's
    assert isinstance(procfs.leader_run_delay(os.getpid()), float)
    assert procfs.cpu_seconds(2**22 + 1) is None and procfs.leader_run_delay(2**22 + 1) is None
