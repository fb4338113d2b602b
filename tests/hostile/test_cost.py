"""Cost judged from outside: submissions that undo every meter inside their own process lose the linear-cost points.

Each case is the reference module of problem 5 or 6 with its function replaced by one that does quadratic work while it
undoes what a counter inside the student's process could see (``hostile/cost/<case>.py``, appended to the reference
module): the N x N form with the dispatch mode popped, the soft memory limit raised and ``time.process_time``
replaced; a blockwise form under popped modes; quadratic work in a forked process that tries to ignore SIGCHLD. Only the
long-sequence test is graded (the one that judges cost), in each sandbox mode of this machine (``hostile/modes.py``),
beside the reference, which must keep it. Where the grader runs as root it grades in this process; in the "user" modes
it runs as an unprivileged uid from a lab of its own (``test_hostile``'s), where one ``grade-all`` of a folder holding the
reference, every cheat and the fair variants (the reference first) grades them all in one worker, and each one's
results.json entry for the long-sequence test is read.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import tempfile
from pathlib import Path

import pytest

from autograder.grading import grader, time_rules
from autograder.grading.runner import load_tests
from autograder.model import manifest, paths
from autograder.sandbox import cpu_group, policy
from tests.helpers import reference_submission
from tests.hostile import test_hostile as hostile

COST = Path(__file__).resolve().parent / "cost"
LONG_TEST = {"random_features": "rff_attention_long_sequence_in_linear_memory",
             "causal_linear_attention": "long_sequence_in_linear_memory"}
CASES = {  # case -> (module, what the student must read)
    "quadratic_meters_undone": ("causal_linear_attention", r"must use time and memory linear in N"),
    "blockwise_popped_modes": ("random_features", r"CPU time grew [0-9.]+ times as much"),
    "quadratic_in_child": ("causal_linear_attention", r"CPU time grew [0-9.]+ times as much"),
    "quadratic_then_cached": ("random_features", r"CPU time grew [0-9.]+ times as much .*, the lesser of two calls"),
    "quadratic_cached_in_scratch": ("random_features", r"CPU time grew [0-9.]+ times as much .*, the lesser of two calls"),
    "padded_at_1024": ("random_features", r"took [0-9.]+ s of CPU for 16384 tokens .* whatever the smaller calls took"),
    "padded_at_256": ("causal_linear_attention", r"CPU time grew"),
}
# Without seccomp a test's process may ignore SIGCHLD: its children are then reaped without their CPU time being added
# to its own, and quadratic work there is not seen in /proc; a cgroup of the worker's own counts it all the same
# (docs/threat_model.md). Keyed by (case, whether such a child's CPU is counted).
CANNOT_STOP = {("quadratic_in_child", False): "without seccomp or a cgroup of the worker's own, an ignored SIGCHLD hides "
                                              "a child's CPU time"}


# What no mode stops (docs/threat_model.md): CPU spent only in problem 6's smaller calls passes its growth check, and
# numpy's blocks of queries against earlier keys (N^2 (C + M) / 2 multiply-accumulates with C = 2) take less at 16384
# tokens than a fair per-token loop, so no cap on that call can tell them apart.
KNOWN_LIMITS = {"padded_at_256": "problem 6's quadratic numpy blocks, padded at 256 tokens, cost less than a fair "
                                 "per-token loop at 16384 tokens, so problem 6 makes no capped call"}


def counts_children_reaped_unseen(mode) -> bool:
    """Whether a grader in ``mode`` counts the CPU of a child reaped unseen: seccomp refuses the ignored SIGCHLD, and a
    root grader here gives its worker a cgroup (a grader of another uid cannot make one on this machine)."""
    return bool(mode.protections and mode.protections.seccomp) or (not mode.as_user and cpu_group.available())
MODES = hostile.MODES  # every mode of this machine, found once for both files
REFERENCE = "0_reference"  # graded first in a user mode's batch, so a cheat never runs in a fresh worker


@pytest.fixture(params=MODES, ids=str)
def mode(request, monkeypatch):
    if request.param.as_user:  # graded by a grader process of its own, started in the user's lab
        yield request.param
        return
    for name in hostile.modes.ALL_OFF:
        monkeypatch.delenv(name, raising=False)
    for name, value in request.param.env.items():
        monkeypatch.setenv(name, value)
    policy._detect.cache_clear()
    yield request.param
    policy._detect.cache_clear()


FAIR = [(module, path.stem) for module in sorted(LONG_TEST) for path in sorted((paths.ASSIGNMENTS / module / "fair").glob("*.py"))]


def appended(module: str, override: Path) -> dict[str, str]:
    """The reference module with ``override`` appended (what it redefines replaces the reference's)."""
    return {module: (paths.REFERENCE / f"{module}.py").read_text() + "\n\n" + override.read_text()}


def cheat(case: str) -> dict[str, str]:
    return appended(CASES[case][0], COST / f"{case}.py")


def fair(module: str, variant: str) -> dict[str, str]:
    return appended(module, paths.ASSIGNMENTS / module / "fair" / f"{variant}.py")


def user_batch(with_fair: bool) -> dict[str, dict[str, str]]:
    """The submissions graded together in a user mode: submission name -> the modules it replaces."""
    batch = {REFERENCE: {}} | {f"1_{case}": cheat(case) for case in sorted(CASES)}
    return batch | ({f"2_{module}-{variant}": fair(module, variant) for module, variant in FAIR} if with_fair else {})


@pytest.fixture(scope="module")
def user_verdicts(request):
    """The verdicts of a user mode, graded when one of its tests first asks (a test worker grades only the modes it
    runs): mode name -> {(submission, module): whether its long-sequence test passed, and what it says}."""
    with_fair = {item.callspec.params["mode"].name for item in request.session.items
                 if "variant" in getattr(getattr(item, "callspec", None), "params", {})}
    users = iter(range(hostile.modes.user_uid_base() + 900, hostile.modes.user_uid_base() + 990))
    found: dict[str, dict[tuple[str, str], tuple[bool, str]]] = {}
    roots: list[Path] = []

    def verdicts(mode) -> dict[tuple[str, str], tuple[bool, str]]:
        if mode.name not in found:
            roots.append(Path(tempfile.mkdtemp(prefix=f"cost-{mode}-", dir="/tmp")))
            found[mode.name] = grade_as_user(mode, roots[-1], next(users), user_batch(mode.name in with_fair))
        return found[mode.name]

    try:
        yield verdicts
    finally:
        for root in roots:
            shutil.rmtree(root, ignore_errors=True)


def grade_as_user(mode, root: Path, uid: int, batch: dict[str, dict[str, str]]) -> dict[tuple[str, str], tuple[bool, str]]:
    """``grade-all`` of ``batch`` in a lab of problems 5 and 6, run as ``uid``; each long-sequence test's verdict."""
    lab = hostile._make_lab(root, lean=True, mode=mode, uid=uid, keep=sorted(LONG_TEST))
    export, out, tmpdir = lab.folder(root / "export"), lab.folder(root / "out"), lab.folder(root / "tmp")
    for name, replace in batch.items():
        submission = lab.folder(export / name)
        for module, source in lab.sources.items():
            (submission / f"{module}.py").write_bytes(replace[module].encode() if module in replace else source)
    hostile.modes.chown_tree(export, uid)
    bound = len(batch) * time_rules.time_bound(lab.assignment, hostile.RESTART_SECONDS) + 60
    code, stdout, stderr, *_ = hostile._grader_process(
        lab, ["grade-all", str(export), "--out", str(out / "grades.csv"), "--jobs", "1"], tmpdir, bound)
    verdicts = {}
    for name in batch:
        path = out / "results" / f"{name}.json"
        assert path.is_file(), f"grade-all in mode {mode} wrote no results for {name} (exit {code}):\n{stdout}\n{stderr}"
        entries = {e["name"]: e for e in json.loads(path.read_text(encoding="utf-8"))["tests"]}
        for module, test in LONG_TEST.items():
            entry = entries[f"{module}: {test}"]
            verdicts[(name, module)] = (entry["status"] == "passed", entry.get("output", ""))
    return verdicts


def grade_long_test(folder: Path, module: str):
    assignment = manifest.load()
    problem = assignment.problem(module)
    tests = {module: [t for t in load_tests(problem, include_hidden=True) if t.name == LONG_TEST[module]]}
    only = dataclasses.replace(assignment, problems=(problem,))
    (result,) = grader.grade(folder, only, grader.Purpose.GRADING, tests=tests).problems
    (test,) = result.tests
    return test


def long_test_verdict(mode, request, folder: Path, name: str, module: str, replace: dict[str, str]) -> tuple[bool, str]:
    """Whether the long-sequence test of ``module`` passed for the reference with ``replace``, and its message."""
    if mode.as_user:
        return request.getfixturevalue("user_verdicts")(mode)[(name, module)]
    test = grade_long_test(reference_submission(folder, replace=replace), module)
    return test.passed, test.message


@pytest.mark.parametrize("module", sorted(LONG_TEST))
def test_the_reference_keeps_its_linear_cost_points(mode, module, tmp_path, request):
    passed, message = long_test_verdict(mode, request, tmp_path / "sub", REFERENCE, module, {})
    assert passed, message


@pytest.mark.parametrize("case", sorted(CASES))
def test_quadratic_work_with_the_meters_undone_loses_its_linear_cost_points(mode, case, tmp_path, request):
    module, says = CASES[case]
    reason = CANNOT_STOP.get((case, counts_children_reaped_unseen(mode))) or KNOWN_LIMITS.get(case)
    if reason:
        request.applymarker(pytest.mark.xfail(reason=reason, strict=True))
    passed, message = long_test_verdict(mode, request, tmp_path / "sub", f"1_{case}", module, cheat(case))
    assert not passed, message
    assert re.search(says, message), message


# The fair variants in the strongest mode and in the strongest user mode: a grader of another uid, with every layer that
# could refuse an honest form in force (the other user modes would each add as much time again for little more).
FAIR_MODES = [MODES[0]] + [m for m in MODES if m.as_user][:1]


@pytest.mark.parametrize("mode", FAIR_MODES, ids=str, indirect=True)
@pytest.mark.parametrize(("module", "variant"), FAIR, ids=[f"{m}-{v}" for m, v in FAIR])
def test_every_fair_variant_keeps_its_linear_cost_points_judged_from_outside(mode, module, variant, tmp_path, request):
    passed, message = long_test_verdict(mode, request, tmp_path / "sub", f"2_{module}-{variant}", module, fair(module, variant))
    assert passed, message


# Not a cheat: the reference, whose first call at 8192 tokens meets a burst of load (CPU time the call did not need, as
# a page fault meeting reclaim or a cache shared with a busy neighbour adds), here 0.4 s of spinning. The first reading
# comes after the calls at 256 and 1024 tokens in the same process; the second, in a fresh process, is its first call.
BURST_AT_FIRST_LONG_CALL = """
import time as _time

_unburst, _calls_before = {function}, []


def {function}(Q, *args, **kwargs):
    if Q.shape[-2] == 8192 and _calls_before:
        end = _time.process_time() + 0.4
        while _time.process_time() < end:
            pass
    _calls_before.append(1)
    return _unburst(Q, *args, **kwargs)
"""
LONG_FUNCTION = {"random_features": "rff_attention", "causal_linear_attention": "causal_linear_attention"}


@pytest.mark.parametrize("module", sorted(LONG_TEST))
def test_a_burst_of_load_at_the_long_call_costs_no_point(module, tmp_path):
    source = (paths.REFERENCE / f"{module}.py").read_text() + BURST_AT_FIRST_LONG_CALL.format(function=LONG_FUNCTION[module])
    test = grade_long_test(reference_submission(tmp_path / "sub", replace={module: source}), module)
    assert test.passed, test.message
