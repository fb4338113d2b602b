"""The memory limit a process lives under, read from cgroup v2 or v1 files (fake trees, and this machine)."""

import subprocess
import sys

from autograder.gradescope import container
from autograder.model import paths
from autograder.sandbox import cgroupfs
from tests.gradescope.machine import real_cgroup


def test_mountinfo_and_membership_are_parsed():
    mounts = cgroupfs.parse_mounts(
        "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
        "32 31 0:29 /docker/abc /sys/fs/cgroup/cpu\\040x rw - cgroup cgroup rw,cpu,cpuacct\n"
        "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
        "23 1 8:1 / / rw - ext4 /dev/sda1 rw\n")
    assert [(m.version, sorted(m.controllers)) for m in mounts] == [(1, ["memory"]), (1, ["cpu", "cpuacct"]), (2, [])]
    assert str(mounts[1].mountpoint) == "/sys/fs/cgroup/cpu x" and mounts[1].root == "/docker/abc"
    own = cgroupfs.parse_membership("4:memory:/process_api/x\n1:cpu,cpuacct:/docker/abc/sub\n0::/user.slice\n")
    assert own == {"memory": "/process_api/x", "cpu": "/docker/abc/sub", "cpuacct": "/docker/abc/sub", "": "/user.slice"}
    assert str(cgroupfs.cgroup_dir(mounts[1], own["cpu"])) == "/sys/fs/cgroup/cpu x/sub"  # a container sees its own cgroup as the root


def test_v2_limit_is_the_smallest_up_the_tree(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "memory.max").write_text("max\n")
    (tmp_path / "a" / "memory.max").write_text(str(768 << 20))
    (tmp_path / "a" / "b" / "memory.max").write_text("max\n")
    limit = cgroupfs.memory_limit(f"1 0 0:1 / {tmp_path} rw - cgroup2 cgroup2 rw\n", "0::/a/b\n")
    assert limit.mb == 768 and limit.readable and "a/memory.max" in limit.source


def test_v1_limit_counts_ancestors_through_the_hierarchical_limit(tmp_path):
    own = tmp_path / "job"
    own.mkdir()
    (own / "memory.limit_in_bytes").write_text("9223372036854771712\n")
    (own / "memory.stat").write_text(f"cache 0\nrss 0\nhierarchical_memory_limit {1536 << 20}\n")
    limit = cgroupfs.memory_limit(f"1 0 0:1 / {tmp_path} rw - cgroup cgroup rw,memory\n", "4:memory:/job\n")
    assert limit.mb == 1536


def test_unlimited_and_unreadable_are_told_apart(tmp_path):
    (tmp_path / "memory.max").write_text("max\n")
    unlimited = cgroupfs.memory_limit(f"1 0 0:1 / {tmp_path} rw - cgroup2 cgroup2 rw\n", "0::/\n")
    assert unlimited.mb is None and unlimited.readable
    nothing = cgroupfs.memory_limit("23 1 8:1 / / rw - ext4 /dev/sda1 rw\n", "")
    assert nothing.mb is None and not nothing.readable


def test_this_process_reads_the_limit_of_a_capped_cgroup_it_runs_in():
    group = real_cgroup(container.Caps(cpus=1, memory_mb=900))
    try:
        out = subprocess.run(group.entry_command([sys.executable, "-c", "from autograder.sandbox import cgroupfs; print(cgroupfs.memory_limit().mb)"]),
                             capture_output=True, text=True, timeout=60, cwd=paths.ROOT)
    finally:
        group.close()
    assert out.stdout.strip() == "900", out.stderr
