"""SandboxSetup: what a session's workers share. Its box (students' modules) never outlives the run that made it, even
when the setup fails half way, and a new setup removes the boxes that killed runs left."""

import os

import pytest

from autograder.sandbox import policy, runtime
from autograder.sandbox.setup import SandboxSetup
from tests.sandbox.test_runtime import dead_pid


def boxes(folder):
    return sorted(folder.glob(f"{runtime.BOX_PREFIX}*"))


@pytest.fixture
def sandboxed():
    if policy.portable_reason():
        pytest.skip(f"no sandbox here: {policy.portable_reason()}")


def test_a_setup_that_fails_half_way_removes_its_box(sandboxed, killed_run_tmp, monkeypatch):
    def fails(*args, **kwargs):
        raise OSError("no Python for the sandbox user")

    # Whichever comes after the box on this machine's path: a uid of its own (root) or not.
    monkeypatch.setattr(runtime, "make_private", fails)
    monkeypatch.setattr(runtime, "this_interpreter", fails)
    with pytest.raises(OSError, match="no Python"):
        SandboxSetup.create((), self_check=False)
    assert boxes(killed_run_tmp) == []


def test_a_new_setup_removes_the_boxes_killed_runs_left_and_no_other(sandboxed, killed_run_tmp):
    dead = killed_run_tmp / f"{runtime.BOX_PREFIX}{dead_pid()}-k9"
    (dead / "submissions" / "s").mkdir(parents=True)
    (dead / "submissions" / "s" / "qkv_arithmetic.py").write_text("# a student's module\n")
    live = killed_run_tmp / f"{runtime.BOX_PREFIX}{os.getppid()}-alive"
    live.mkdir()
    setup = SandboxSetup.create((), self_check=True)
    try:
        assert not dead.exists() and live.is_dir()
        assert boxes(killed_run_tmp) == sorted([live, setup.box.root])
    finally:
        setup.close()
    assert boxes(killed_run_tmp) == [live]
