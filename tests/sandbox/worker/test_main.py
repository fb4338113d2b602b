"""The worker's first process: what it does to itself after its imports."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

WORKER = Path(__file__).resolve().parents[3] / "autograder" / "sandbox" / "worker"


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")
def test_collapsing_into_huge_pages_keeps_the_address_space():
    code = """
import sys
sys.path.insert(0, sys.argv[1])
import main, procfs
junk = [bytearray(4096) for _ in range(30000)]  # 120 MB of small objects, as torch's import leaves

def huge_kb():
    with open("/proc/self/smaps_rollup") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("AnonHugePages:"))

import ctypes
list(procfs.memory_map("self")), huge_kb(), procfs.status("self")  # the Python objects the measured calls make, made once
before, size = huge_kb(), procfs.status("self").vm_size_kb  # (else a new 1 MB arena of Python's could be counted)
print(main.collapse_into_huge_pages(), before, huge_kb(), size, procfs.status("self").vm_size_kb)
"""
    done, huge_before, huge_after, size_before, size_after = map(int, subprocess.run(
        [sys.executable, "-c", code, str(WORKER)], capture_output=True, text=True, check=True).stdout.split())
    assert size_after == size_before  # what the memory limit counts does not change
    thp = Path("/sys/kernel/mm/transparent_hugepage/enabled")
    if not thp.exists() or "[never]" in thp.read_text():
        assert done == 0 and huge_after == huge_before
    else:  # the process's small pages are now huge ones (a fork copies far fewer page-table entries)
        assert done >= 64 << 20 and huge_after - huge_before >= 64 << 10


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
def test_prctl_works_through_one_c_library_that_a_child_reuses():
    code = """
import ctypes, os, sys
sys.path.insert(0, sys.argv[1])
import main
assert main._prctl(main.PR_SET_CHILD_SUBREAPER, 1)
got = ctypes.c_int()
assert main._libc().prctl(37, ctypes.byref(got), 0, 0, 0) == 0  # PR_GET_CHILD_SUBREAPER
loaded = main._libc()
read, write = os.pipe()
if os.fork() == 0:
    os.write(write, b"same" if main._prctl(main.PR_SET_PDEATHSIG, 9) and main._libc() is loaded else b"new")
    os._exit(0)
os.wait()
print(got.value, os.read(read, 10).decode(), main._prctl(-1, 0))
"""
    out = subprocess.run([sys.executable, "-c", code, str(WORKER)], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["1", "same", "False"]  # an option the kernel does not know fails as False


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")
def test_the_first_process_finds_its_children_with_or_without_the_kernel_s_list():
    code = """
import os, subprocess, sys
sys.path.insert(0, sys.argv[1])
import main, procfs
children = [subprocess.Popen(["sleep", "30"]) for _ in range(2)]
listed = sorted(main._children())
procfs.children = lambda pid: None  # a kernel that does not list children: every process's parent is read
scanned = sorted(main._children())
for child in children:
    child.kill()
    child.wait()
print(listed == scanned == sorted(c.pid for c in children))
"""
    assert subprocess.run([sys.executable, "-c", code, str(WORKER)], capture_output=True, text=True, check=True).stdout.split() == ["True"]
