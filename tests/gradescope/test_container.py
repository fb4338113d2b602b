"""Capped cgroups: v1 and v2 on a fake tree (files written, readouts parsed), and on this machine where it allows."""

import os
import subprocess
import sys
import time

import pytest

from autograder.gradescope import container

from .machine import real_cgroup

CAPS = container.Caps(cpus=0.5, memory_mb=768)


def _v2_tree(tmp_path, own_controllers="cpu memory"):
    mount = tmp_path / "unified"
    own = mount / "user.slice" / "me"
    own.mkdir(parents=True)
    (mount / "cgroup.controllers").write_text("cpu io memory pids")
    (mount / "cgroup.subtree_control").write_text("")
    (own / "cgroup.controllers").write_text(own_controllers)
    (own / "cgroup.subtree_control").write_text("")
    mountinfo = f"41 31 0:38 / {mount} rw,relatime - cgroup2 cgroup2 rw\n"
    return mount, own, mountinfo, "0::/user.slice/me\n"


def test_v2_caps_are_written_below_the_own_cgroup(tmp_path):
    mount, own, mountinfo, membership = _v2_tree(tmp_path)
    group = container.create(CAPS, mountinfo=mountinfo, membership=membership)
    assert group.version == 2 and group.path.parent == own
    assert (own / "cgroup.subtree_control").read_text() == "+cpu +memory"
    assert (group.path / "cpu.max").read_text() == "50000 100000"
    assert (group.path / "memory.max").read_text() == str(768 << 20)
    assert group.entry_command(["true"])[-1] == "true" and str(group.path / "cgroup.procs") in group.entry_command(["true"])


def test_cgroups_a_killed_run_left_behind_are_removed_and_live_ones_kept(tmp_path):
    mount, own, mountinfo, membership = _v2_tree(tmp_path)
    orphan, alive, other = own / "autograder-gradescope-999999999-abc123", own / f"autograder-gradescope-{os.getpid()}-abc123", own / "theirs"
    for folder in (orphan, alive, other):
        folder.mkdir()
    container.create(CAPS, mountinfo=mountinfo, membership=membership)
    assert not orphan.exists() and alive.exists() and other.exists()


def test_v2_falls_back_to_the_mount_root_when_the_own_cgroup_cannot_delegate(tmp_path):
    mount, own, mountinfo, membership = _v2_tree(tmp_path, own_controllers="pids")
    group = container.create(CAPS, mountinfo=mountinfo, membership=membership)
    assert group.path.parent == mount


def test_v2_readouts(tmp_path):
    group = container.CgroupV2(tmp_path)
    (tmp_path / "memory.peak").write_text(str(700 << 20) + "\n")
    (tmp_path / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
    (tmp_path / "cpu.stat").write_text("usage_usec 2500000\nuser_usec 2000000\nnr_periods 40\nnr_throttled 7\n")
    assert group.peak_mb() == 700 and group.oom_kills() == 1 and group.cpu_seconds() == 2.5 and group.throttled_periods() == 7


def _v1_tree(tmp_path):
    lines, membership = [], []
    for i, (controllers, own) in enumerate([("memory", "/jobs/a"), ("cpu,cpuacct", "/"), ("freezer", "/")]):
        mount = tmp_path / controllers
        (mount / own.lstrip("/")).mkdir(parents=True, exist_ok=True)
        lines.append(f"{32 + i} 31 0:{29 + i} / {mount} rw,relatime - cgroup cgroup rw,{controllers}")
        membership.append(f"{i + 1}:{controllers}:{own}")
    return "\n".join(lines) + "\n", "\n".join(membership) + "\n"


def test_v1_caps_go_into_each_hierarchy_below_the_own_cgroups(tmp_path):
    mountinfo, membership = _v1_tree(tmp_path)
    group = container.create(CAPS, mountinfo=mountinfo, membership=membership)
    assert group.version == 1
    memory, cpu = group.by_controller["memory"], group.by_controller["cpu"]
    assert memory.parent == tmp_path / "memory" / "jobs" / "a" and cpu.parent == tmp_path / "cpu,cpuacct"
    assert group.by_controller["cpuacct"] == cpu and len(group.dirs) == 3  # co-mounted controllers share one folder
    assert (memory / "memory.limit_in_bytes").read_text() == str(768 << 20)
    assert (cpu / "cpu.cfs_quota_us").read_text() == "50000" and (cpu / "cpu.cfs_period_us").read_text() == "100000"
    (memory / "memory.max_usage_in_bytes").write_text(str(512 << 20))
    (memory / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 2\n")
    (cpu / "cpuacct.usage").write_text("1500000000")
    (cpu / "cpu.stat").write_text("nr_periods 12\nnr_throttled 5\nthrottled_time 99\n")
    assert group.peak_mb() == 512 and group.oom_kills() == 2 and group.cpu_seconds() == 1.5 and group.throttled_periods() == 5


def test_no_usable_hierarchy_names_what_is_missing_and_the_fix(tmp_path):
    mountinfo = f"41 31 0:38 / {tmp_path} rw,relatime - cgroup2 cgroup2 rw\n"
    (tmp_path / "cgroup.controllers").write_text("hugetlb")
    with pytest.raises(container.CgroupUnavailable) as err:
        container.create(CAPS, mountinfo=mountinfo, membership="0::/\n")
    text = str(err.value)
    assert "not cpu and memory" in text and "no 'memory' hierarchy" in text and "Fix:" in text


def test_real_cgroup_caps_cpu_and_memory_and_kills_everything():
    group = real_cgroup(container.Caps(cpus=0.5, memory_mb=64))
    try:
        hog = subprocess.run(group.entry_command([sys.executable, "-c", "b = bytearray(300 << 20)"]), capture_output=True, timeout=60)
        assert hog.returncode == -9 and group.oom_kills() >= 1  # the memory cap is real
        quota = (group.by_controller["cpu"] / "cpu.cfs_quota_us") if group.version == 1 else (group.path / "cpu.max")
        assert quota.read_text().split()[0] == "50000"  # the kernel took the CPU cap (how much it bites depends on the load)
        script = "sleep 300 & setsid sleep 300 & (sleep 300 &) ; sleep 300"
        proc = subprocess.Popen(group.entry_command(["/bin/sh", "-c", script]), start_new_session=True)
        time.sleep(1)
        assert len(group.pids()) >= 4
        assert group.kill_all() >= 4 and not group.pids()
        proc.wait(timeout=10)
    finally:
        group.close()
    assert not any(d.exists() for d in group.dirs)
