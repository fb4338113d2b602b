"""Cost judged from outside: submissions that undo every meter inside their own process lose the linear-cost points.

Each case is the reference module of problem 5 or 6 with its function replaced by one that does quadratic work while it
undoes what a counter inside the student's process could see (``hostile/cost/<case>.py``, appended to the reference
module): the N x N form with the dispatch mode popped, the soft memory limit raised and ``time.process_time``
replaced; a blockwise form under popped modes; quadratic work in a forked process that tries to ignore SIGCHLD. Only the
long-sequence test is graded (the one that judges cost), in each sandbox mode of this machine where the grader runs as
itself (``hostile/modes.py``), beside the reference, which must keep it.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from autograder.grading import grader
from autograder.grading.runner import load_tests
from autograder.model import manifest, paths
from autograder.sandbox import policy
from tests.helpers import reference_submission
from tests.hostile import modes

COST = Path(__file__).resolve().parent / "cost"
LONG_TEST = {"random_features": "rff_attention_long_sequence_in_linear_memory",
             "causal_linear_attention": "long_sequence_in_linear_memory"}
CASES = {  # case -> (module, what the student must read)
    "quadratic_meters_undone": ("causal_linear_attention", r"must use time and memory linear in N"),
    "blockwise_popped_modes": ("random_features", r"CPU time grew [0-9.]+ times as much"),
    "quadratic_in_child": ("causal_linear_attention", r"CPU time grew [0-9.]+ times as much"),
}
# Without seccomp a test's process may ignore SIGCHLD: its children are then reaped without their CPU time being added
# to its own, and quadratic work there is not seen (docs/threat_model.md).
CANNOT_STOP = {("quadratic_in_child", False): "without seccomp an ignored SIGCHLD hides a child's CPU time"}
ROOT_MODES = [m for m in modes.available() if not m.as_user]


@pytest.fixture(params=ROOT_MODES, ids=str)
def mode(request, monkeypatch):
    for name in modes.ALL_OFF:
        monkeypatch.delenv(name, raising=False)
    for name, value in request.param.env.items():
        monkeypatch.setenv(name, value)
    policy._detect.cache_clear()
    yield request.param
    policy._detect.cache_clear()


def grade_long_test(folder: Path, module: str):
    assignment = manifest.load()
    problem = assignment.problem(module)
    tests = {module: [t for t in load_tests(problem, include_hidden=True) if t.name == LONG_TEST[module]]}
    only = dataclasses.replace(assignment, problems=(problem,))
    (result,) = grader.grade(folder, only, grader.Purpose.GRADING, tests=tests).problems
    (test,) = result.tests
    return test


@pytest.mark.parametrize("module", sorted(LONG_TEST))
def test_the_reference_keeps_its_linear_cost_points(mode, module, tmp_path):
    test = grade_long_test(reference_submission(tmp_path / "sub"), module)
    assert test.passed, test.message


@pytest.mark.parametrize("case", sorted(CASES))
def test_quadratic_work_with_the_meters_undone_loses_its_linear_cost_points(mode, case, tmp_path, request):
    module, says = CASES[case]
    reason = CANNOT_STOP.get((case, bool(mode.protections and mode.protections.seccomp)))
    if reason:
        request.applymarker(pytest.mark.xfail(reason=reason, strict=True))
    source = (paths.REFERENCE / f"{module}.py").read_text() + "\n\n" + (COST / f"{case}.py").read_text()
    test = grade_long_test(reference_submission(tmp_path / "sub", replace={module: source}), module)
    assert not test.passed
    assert re.search(says, test.message), test.message


FAIR = [(module, path.stem) for module in sorted(LONG_TEST) for path in sorted((paths.ASSIGNMENTS / module / "fair").glob("*.py"))]


@pytest.mark.parametrize(("module", "variant"), FAIR, ids=[f"{m}-{v}" for m, v in FAIR])
def test_every_fair_variant_keeps_its_linear_cost_points_judged_from_outside(module, variant, tmp_path):
    source = (paths.REFERENCE / f"{module}.py").read_text() + "\n\n" + (paths.ASSIGNMENTS / module / "fair" / f"{variant}.py").read_text()
    test = grade_long_test(reference_submission(tmp_path / "sub", replace={module: source}), module)
    assert test.passed, test.message
