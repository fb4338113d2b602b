"""Submissions graded the way Gradescope runs the zip: as root in /autograder, in a cgroup with its default CPU and memory.

Each run takes 15-60 s at half a CPU, so there are few: the reference on the real zip (namespaces
allowed); every function of every module hanging, on a zip whose calls are limited to 1 s (the rules
are the same, the scale smaller; bench/bench_gradescope.py runs it at the real limits); and on a zip
of four problems, one module that takes all the memory it may, one that leaves 200 processes behind
and one stub, before a witness problem that must keep full marks, with namespaces allowed and refused.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest

from autograder.gradescope import emulate, probes, results_format
from autograder.grading import time_rules
from autograder.model import manifest, paths
from autograder.reports.score_table import problem_totals
from autograder.sandbox.worker import procfs

from . import projects
from .machine import require_emulation

HOG, SPAWN, STUB, WITNESS = "qkv_arithmetic", "receptive_field", "complexity", "shift_matrix"


@pytest.fixture(scope="module", autouse=True)
def machine_allows():
    require_emulation()


@pytest.fixture(scope="module")
def real_zip(tmp_path_factory):
    return projects.build_zip(tmp_path_factory.mktemp("real"))


@pytest.fixture(scope="module")
def four_problem_zip(tmp_path_factory):
    return projects.build_zip(tmp_path_factory.mktemp("four"), problems=[HOG, SPAWN, STUB, WITNESS])


def valid(run: emulate.Run) -> dict:
    """The run's results.json, after checking it is one Gradescope accepts and the run ended by itself."""
    assert not run.timed_out and run.results is not None, run.stdout[-3000:]
    assert results_format.problems(run.results) == []
    assert run.source_mode == 0o700  # the harness, reference and tests were root-only while the submission ran
    return run.results


def totals(results: dict, modules: list[str]) -> dict[str, tuple[float, float]]:
    return problem_totals(results, modules)


def test_reference_gets_full_marks_with_namespaces(real_zip):
    run = emulate.emulate(real_zip, paths.REFERENCE, namespaces=True)
    results = valid(run)
    assert results["score"] == manifest.load().total_points
    assert run.caps is not None and run.peak_memory_mb is not None and run.oom_kills == 0


def test_every_module_hanging_ends_with_results_that_say_which_calls_were_stopped(tmp_path):
    modules = manifest.load().modules
    zip_path = projects.build_zip(tmp_path / "quick", call_seconds=1)
    hanging = probes.submission(tmp_path / "sub", {m: probes.HANG if i % 2 else probes.SLEEP for i, m in enumerate(modules)})
    run = emulate.emulate(zip_path, hanging, namespaces=False)
    results = valid(run)
    assert results["score"] == 0
    # The run record counts what the time rules did, by kind; staff see the layers the grader used.
    assert len(modules) <= run.stopped_calls <= time_rules.BUDGET_FACTOR * len(modules) and run.calls_not_run >= len(modules)
    assert run.staff_notes[0].startswith("sandbox: ") and "bubblewrap" in run.staff_notes[0].split("not available:")[1]
    for module in modules:
        outputs = [t.get("output", "") for t in results["tests"] if t["name"].startswith(module)]
        stopped = sum("did not finish within the time limit of 1 s" in o for o in outputs)
        assert 1 <= stopped <= time_rules.BUDGET_FACTOR, (module, outputs)
        assert any("was not run:" in o for o in outputs), module


@pytest.mark.parametrize("namespaces", [True, False], ids=["namespaces", "no-namespaces"])
def test_memory_and_process_abuse_and_a_stub_cost_only_their_own_problems(four_problem_zip, tmp_path, namespaces):
    sub = probes.submission(tmp_path / "sub", {HOG: probes.HOG, SPAWN: probes.SPAWN}, stubs=(STUB,))
    run = emulate.emulate(four_problem_zip, sub, namespaces=namespaces)
    scores = totals(valid(run), [HOG, SPAWN, STUB, WITNESS])
    assert scores[HOG][0] == 0 and scores[SPAWN][0] == 0 and scores[STUB][0] == 0, scores
    assert scores[WITNESS][0] == scores[WITNESS][1] > 0, (scores, run.oom_kills, run.stdout[-2000:])


def test_without_a_cgroup_what_is_left_in_the_entry_points_session_is_killed():
    entry = subprocess.Popen(["/bin/sh", "-c", "sleep 60 & sleep 60; :"], start_new_session=True)
    try:
        deadline, in_session = time.monotonic() + 10, []
        while len(in_session) < 3 and time.monotonic() < deadline:
            in_session = [pid for pid in procfs.pids() if (info := procfs.stat(pid)) is not None and info.session == entry.pid]
            time.sleep(0.05)
        assert len(in_session) == 3, in_session  # the shell and its two sleeps
        assert emulate._kill_session(entry.pid) == 3
        assert entry.wait(timeout=10) == -signal.SIGKILL
    finally:
        try:
            os.killpg(entry.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        entry.wait()


HOSTILE = {"oracle": paths.ROOT / "tests" / "hostile" / "isolation" / "oracle.py",
           "forge_files": paths.ROOT / "tests" / "hostile" / "modules" / "forge_files.py"}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_cases_hold_through_the_zip_entry_point(real_zip, tmp_path, case):
    """The timing oracle (``hostile/isolation/oracle.py``) and a forger of results.json, appended to qkv_arithmetic, graded
    by the zip's own entry point as root without namespaces (Gradescope's usual container;
    bench/bench_hostile_emulated.py runs the whole corpus so)."""
    host = "qkv_arithmetic"
    source = (paths.REFERENCE / f"{host}.py").read_text() + "\n\n" + HOSTILE[case].read_text()
    sub = probes.submission(tmp_path / "sub", {})
    (sub / f"{host}.py").write_text(source)
    run = emulate.emulate(real_zip, sub, namespaces=False)
    results = valid(run)
    modules = manifest.load().modules
    scores = totals(results, modules)
    assert all(scores[m][0] == scores[m][1] for m in modules if m != host), scores
    assert "__MARKER__" not in json.dumps(results) and results["score"] <= manifest.load().total_points
    argmax = [t for t in results["tests"] if t["name"].startswith(host) and "argmax" in t["name"] and t["max_score"]]
    if case == "oracle":  # each test runs in a fresh process and is judged after every call: its first call in each gets None
        assert argmax and any("got None" in t["output"] for t in argmax), argmax
        assert sum(t["score"] for t in argmax) < sum(t["max_score"] for t in argmax), argmax
