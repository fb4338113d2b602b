"""The machine's protections are probed once, and may be probed early on a thread while the command is imported."""

import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from autograder.sandbox import policy


@pytest.fixture
def fresh_probes(monkeypatch):
    monkeypatch.delenv(policy.PORTABLE_ENV, raising=False)
    monkeypatch.setattr(policy, "_EARLY", [])
    policy._detect.cache_clear()
    yield
    policy._detect.cache_clear()


def test_early_probes_give_what_probing_now_gives(fresh_probes, monkeypatch):
    now = policy.detect()
    policy._detect.cache_clear()
    calls = []
    real = policy._detect.__wrapped__
    monkeypatch.setattr(policy, "_detect", policy.functools.lru_cache(maxsize=1)(lambda: calls.append(1) or real()))
    policy.detect_soon()
    policy.detect_soon()  # a second call starts nothing more
    assert len(policy._EARLY) == 1 and policy._EARLY[0].name == "autograder-probes"
    assert policy.detect() == now
    assert not policy._EARLY[0].is_alive() and calls == [1]  # detect waited for the early probes instead of probing again


def test_no_early_probes_on_the_portable_path(fresh_probes, monkeypatch):
    monkeypatch.setenv(policy.PORTABLE_ENV, "1")
    before = threading.active_count()
    policy.detect_soon()
    assert policy._EARLY == [] and threading.active_count() == before


def test_a_root_worker_under_bubblewrap_keeps_only_its_capabilities_of_the_bounding_set(monkeypatch):
    monkeypatch.setattr(policy, "_bounding_set", lambda: (1 << 6) | (1 << 7))  # no CAP_SYS_RESOURCE (24) to keep
    assert policy.root_capabilities() == {"CAP_SETGID": 6, "CAP_SETUID": 7}
    protections = policy.Protections(bwrap="/usr/bin/bwrap", is_root=True)
    box = policy.Box(Path("/b"), Path("/b/w"), Path("/b/s"), Path("/b/t"), 0, 0)
    monkeypatch.setattr(policy, "bwrap_sizes_tmpfs", lambda bwrap: True)
    cmd = policy.bwrap_command(protections, policy.Interpreter("/usr/bin/python3", ("/usr",)), box)
    added = [cmd[i + 1] for i, arg in enumerate(cmd) if arg == "--cap-add"]
    assert added == ["CAP_SETGID", "CAP_SETUID"] and "--cap-drop" in cmd


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("bwrap"), reason="bubblewrap as root only")
def test_what_bubblewrap_leaves_a_root_worker_before_its_uid_drop():
    """On a machine whose bounding set lacks one of the three (this one lacks CAP_SYS_RESOURCE), asking bubblewrap for
    all three left every capability."""
    bwrap = shutil.which("bwrap")
    box = policy.Box(Path("/b"), Path("/b/w"), Path("/b/s"), Path("/b/t"), 0, 0)
    full = policy.bwrap_command(policy.Protections(bwrap=bwrap, is_root=True), policy.Interpreter("/usr/bin/python3", ("/usr",)), box)
    capabilities = full[full.index("--cap-drop"):]  # what the worker's command line asks of bubblewrap
    cmd = [bwrap, "--ro-bind", "/", "/", "--unshare-pid", *capabilities, "grep", "CapEff", "/proc/self/status"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    assert int(out.stdout.split()[1], 16) == sum(1 << number for number in policy.ROOT_CAPABILITIES.values()) & policy._bounding_set()


@pytest.mark.parametrize("bwrap, is_root, userns, enters", [
    (None, False, True, True),          # a user without bubblewrap: the worker's own namespace counts its processes
    (None, False, False, False),        # the kernel refuses one: the count is the user's
    ("/usr/bin/bwrap", False, True, False),  # bubblewrap's namespace counts them already
    (None, True, True, False),          # root: a uid of its own counts them
])
def test_a_worker_enters_a_user_namespace_only_where_nothing_else_counts_its_processes_apart(bwrap, is_root, userns, enters):
    protections = policy.Protections(bwrap=bwrap, is_root=is_root, landlock=7, seccomp=True, userns=userns)
    box = policy.Box(Path("/tmp/b"), Path("/tmp/b/worker"), Path("/tmp/b/submissions"), Path("/tmp/b/scratch"))
    args = policy.worker_arguments(protections, policy.Interpreter("/usr/bin/python3", ("/usr",)), box, 100, 3, 4)
    assert ("--user-namespace" in args) is enters
    assert protections.own_user_namespace is enters
    assert protections.shared_process_count is (bwrap is None and not is_root and not userns)
    said = protections.describe()
    assert ("own user namespace per worker" in said) is enters
    assert ("a user namespace of its own (its processes count against this user's" in said) is protections.shared_process_count
