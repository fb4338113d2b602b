"""The worker's room for student data: the container's memory minus the grader's share, beyond the worker's own imports."""

import dataclasses

from autograder.grading import worker_memory
from autograder.sandbox.cgroupfs import MemoryLimit

START = 0  # the room is counted beyond what the worker holds after importing torch (it measures that itself)


def test_gradescope_default_container_leaves_the_grader_its_share(assignment):
    share = assignment.gradescope.grader_memory_mb
    chosen = worker_memory.choose(assignment, MemoryLimit(768, "cgroup v2 /sys/fs/cgroup/memory.max"))
    assert chosen.mb == START + 768 - share and not chosen.warning
    assert "768 MB (cgroup v2 /sys/fs/cgroup/memory.max)" in chosen.reason


def test_an_unreadable_limit_assumes_the_manifest(assignment):
    settings = dataclasses.replace(assignment.gradescope, memory_mb=1024)
    chosen = worker_memory.choose(dataclasses.replace(assignment, gradescope=settings), MemoryLimit(None, "no cgroup memory controller found", False))
    assert chosen.mb == START + 1024 - settings.grader_memory_mb and "assumed from the manifest" in chosen.reason


def test_no_container_limit_or_a_large_one_gives_the_assignment_s_worker_memory(assignment):
    assert worker_memory.choose(assignment, MemoryLimit(None, "no memory limit")).mb == assignment.worker_memory_mb
    assert worker_memory.choose(assignment, MemoryLimit(64 << 10, "big")).mb == assignment.worker_memory_mb


def test_a_container_too_small_for_the_grader_and_the_reference_says_what_to_set(assignment):
    share = assignment.gradescope.grader_memory_mb
    chosen = worker_memory.choose(assignment, MemoryLimit(share + 10, "cgroup v1"))
    assert chosen.mb == START + worker_memory.MIN_ROOM_MB
    assert f"at least {share + worker_memory.MIN_ROOM_MB} MB" in chosen.warning


def test_validation_uses_the_room_of_the_manifests_container(assignment):
    room = worker_memory.gradescope_room(assignment)
    assert room.mb == min(assignment.worker_memory_mb, assignment.gradescope.memory_mb - assignment.gradescope.grader_memory_mb)
    assert "the manifest's Gradescope container" in room.reason
