"""Grading on an oversubscribed machine gives the verdicts an idle one gives.

Known mistakes and fair variants of problems 1, 5 and 6 are graded twice: on the machine as it is, then beside busy
low-priority processes (three per core) that the grader did not start. Every test must pass or fail alike and fail
with the same kind: time is judged in CPU seconds of what the call ran, never by the wall clock the load stretches.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys

import pytest

from autograder.grading import grader
from autograder.model import manifest, paths
from tests.helpers import reference_submission

PROBLEMS = ("qkv_arithmetic", "random_features", "causal_linear_attention")
BUSY_PER_CORE = 3
# Two submissions, each a known mistake or a fair variant in every problem: the slowest fair variants of problems 5
# and 6 (loops over tokens) and the quadratic form that the long-sequence test must catch.
SUBMISSIONS = {
    "mistakes_and_loops": {"qkv_arithmetic": ("mistakes", "causal_mask_after_softmax"), "random_features": ("fair", "numpy_loops"),
                           "causal_linear_attention": ("mistakes", "linear_via_quadratic_form")},
    "loops_and_mistakes": {"qkv_arithmetic": ("fair", "numpy_loops"), "random_features": ("mistakes", "rff_attention_numpy_blockwise_quadratic"),
                           "causal_linear_attention": ("fair", "loop_over_recurrent_step")},
}


def _source(module: str, folder: str, variant: str) -> str:
    return (paths.REFERENCE / f"{module}.py").read_text() + "\n\n" + (paths.ASSIGNMENTS / module / folder / f"{variant}.py").read_text()


def _verdicts(folder) -> dict[tuple[str, str], tuple[bool, str]]:
    assignment = manifest.load()
    only = dataclasses.replace(assignment, problems=tuple(assignment.problem(m) for m in PROBLEMS))
    report = grader.grade(folder, only, grader.Purpose.GRADING)
    return {(p.module, t.name): (t.passed, t.failure) for p in report.problems for t in p.tests}


def _busy_processes() -> list[subprocess.Popen]:
    count = BUSY_PER_CORE * len(os.sched_getaffinity(0))
    return [subprocess.Popen([sys.executable, "-c", "import os\nos.nice(19)\nwhile True: pass"], start_new_session=True) for _ in range(count)]


@pytest.mark.parametrize("name", sorted(SUBMISSIONS))
def test_an_oversubscribed_machine_changes_no_verdict_and_no_kind(name, tmp_path):
    sub = reference_submission(tmp_path / "sub", replace={m: _source(m, *chosen) for m, chosen in SUBMISSIONS[name].items()})
    calm = _verdicts(sub)
    busy = _busy_processes()
    try:
        loaded = _verdicts(sub)
    finally:
        for proc in busy:
            proc.kill()
            proc.wait()
    changed = {test: (calm[test], loaded.get(test)) for test in calm if loaded.get(test) != calm[test]}
    assert not changed, changed
    assert any(not passed for passed, _kind in calm.values()) and any(passed for passed, _kind in calm.values())


def test_an_infinite_loop_checked_beside_busy_processes_is_the_student_s_timeout_or_their_busy_machine(tmp_path):
    source = (paths.REFERENCE / "qkv_arithmetic.py").read_text() + "\n\ndef softmax_attention(*args, **kwargs):\n    while True:\n        pass\n"
    sub = reference_submission(tmp_path / "sub", replace={"qkv_arithmetic": source})
    assignment = manifest.load()
    only = dataclasses.replace(assignment, problems=(assignment.problem("qkv_arithmetic"),))
    busy = _busy_processes()
    try:
        (result,) = grader.grade(sub, only, grader.Purpose.SELF_CHECK).problems
    finally:
        for proc in busy:
            proc.kill()
            proc.wait()
    stopped = [t for t in result.tests if t.failure]
    assert stopped and {t.failure for t in stopped} <= {"timeout", "skipped", "budget", "busy", "busy_not_run"}, stopped
    assert not any("course staff" in t.message or "fault of the grader" in t.message for t in stopped), [t.message for t in stopped]
