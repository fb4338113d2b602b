"""The grader's view of a worker in /proc: the processes below its first process."""

import os
import subprocess
import sys
import time

import pytest

from autograder.sandbox import process
from autograder.sandbox.worker import procfs

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")


def test_the_tree_below_a_process_is_what_every_process_s_parent_says():
    # A child with two children, one of which has a child of its own.
    inner = "import subprocess, time; subprocess.Popen(['sleep', '30']); time.sleep(30)"
    code = f"import subprocess, sys, time; subprocess.Popen(['sleep', '30']); subprocess.Popen([sys.executable, '-c', {inner!r}]); time.sleep(30)"
    child = subprocess.Popen([sys.executable, "-c", code])
    try:
        for _ in range(400):
            expected = process._descendants(process._process_table(), os.getpid())
            if len(expected) >= 4:  # the child, its sleep, its inner Python and that one's sleep
                break
            time.sleep(0.05)
        tree = process._tree(os.getpid())
        if tree is None:
            pytest.skip("this kernel does not list children (CONFIG_PROC_CHILDREN)")
        assert child.pid in tree and len(tree) == 4
        assert tree == expected
    finally:
        for pid in process._descendants(process._process_table(), child.pid):
            os.kill(pid, 9)
        child.kill()
        child.wait()


def test_no_tree_where_the_kernel_does_not_list_children(monkeypatch):
    monkeypatch.setattr(procfs, "children", lambda pid: None)
    assert process._tree(os.getpid()) is None
