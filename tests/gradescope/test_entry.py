"""The zip's entry point gives what ``grade`` gives, entry for entry; no hidden entry reveals a hidden value, a figure computed from one, or a test line.

Each submission is graded twice at once: by the zip's entry point in the emulated /autograder layout (a temporary
folder laid out as Gradescope does, ``python -I source/run_grading.py``: the command ``run_autograder`` execs, without
the cgroup, which changes nothing of what is graded) and by ``grade``'s run in this process (a fresh session, results
rendered by the same view). Submissions: the reference, the stubs, one that hangs, crashes and answers everything else
wrongly, and the first and last known mistake of every problem together (bench/bench_one_run.py grades every mistake
file this way, one combined submission per mistake index).
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

from autograder.expected import records
from autograder.gradescope import build, layout, results_format, run_record
from autograder.gradescope.entry import ENTRY_SCRIPT
from autograder.grading import grader
from autograder.model import manifest, paths
from autograder.reports import results_json
from autograder.staff import solutions
from tests.helpers import reference_submission

# Added to each reference module: every public function answers wrongly (floats * 1.5 + 0.123, ints * 7 + 3, sets
# shifted), so every hidden check that compares values fails and would show its expected value if it could.
WRONG_EVERYWHERE = '''

def _wrong(value):
    import torch as _torch
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value * 7 + 3
    if isinstance(value, float):
        return value * 1.5 + 0.123
    if isinstance(value, _torch.Tensor) and value.is_floating_point():
        return value * 1.5 + 0.123
    if isinstance(value, (tuple, list)):
        return type(value)(_wrong(v) for v in value)
    if isinstance(value, dict):
        return {k: _wrong(v) for k, v in value.items()}
    if isinstance(value, set):
        return {v + 1000 for v in value}
    return value


def _wrapped(func):
    def wrong(*args, **kwargs):
        return _wrong(func(*args, **kwargs))
    return wrong


for _name in NAMES:
    globals()[_name] = _wrapped(globals()[_name])
'''
HANGS = "\n\ndef argmax_attention(Q, K, V):\n    while True:\n        pass\n"
CRASHES = "\n\ndef receptive_field(attended, position):\n    import os\n    os._exit(3)\n"


def public_functions(module: str) -> list[str]:
    tree = ast.parse(solutions.reference_path(module).read_text(encoding="utf-8"))
    return [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")]


def wrong_everywhere(folder: Path) -> Path:
    """Every function wrong; qkv_arithmetic.argmax_attention hangs and receptive_field.receptive_field crashes the process."""
    sources = {}
    for module in manifest.load().modules:
        source = solutions.reference_path(module).read_text(encoding="utf-8") + f"\nNAMES = {public_functions(module)!r}\n" + WRONG_EVERYWHERE
        sources[module] = source + {"qkv_arithmetic": HANGS, "receptive_field": CRASHES}.get(module, "")
    return reference_submission(folder, replace=sources)


def mistakes_at(folder: Path, which: int) -> Path:
    """The ``which``-th known mistake of every problem (e.g. -1: the last), in one submission."""
    return reference_submission(folder, replace={m: solutions.mistakes(m)[which].source() for m in manifest.load().modules})


SUBMISSIONS = {
    "reference": lambda tmp: reference_submission(tmp),
    "stubs": lambda tmp: Path(shutil.copytree(paths.TEMPLATES, tmp)),
    "wrong_hanging_crashing": wrong_everywhere,
    "first_mistakes": lambda tmp: mistakes_at(tmp, 0),
    "last_mistakes": lambda tmp: mistakes_at(tmp, -1),
}


@pytest.fixture(scope="module")
def autograder_zip(tmp_path_factory):
    return build.build_autograder_zip(tmp_path_factory.mktemp("dist") / "autograder.zip")


def start_entry_point(autograder_zip: Path, submission: Path, root: Path) -> subprocess.Popen:
    """The zip's entry point on ``submission``, in ``root`` laid out as Gradescope lays out /autograder."""
    root.mkdir()
    layout.lay_out(root, autograder_zip, submission)
    return subprocess.Popen([sys.executable, "-I", str(root / "source" / ENTRY_SCRIPT)], cwd=root,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def both_paths(autograder_zip: Path, tmp_path: Path, which: str) -> tuple[dict, dict]:
    """(the entry point's results.json, ``grade``'s) for the submission ``which``."""
    submission = SUBMISSIONS[which](tmp_path / "submission")
    proc = start_entry_point(autograder_zip, submission, tmp_path / "autograder")
    assignment = manifest.load()
    graded = results_json.to_results(grader.grade(submission, assignment, grader.Purpose.GRADING), assignment.gradescope.visibility)
    log, _ = proc.communicate(timeout=900)
    assert proc.returncode == 0, log[-3000:]
    zipped = json.loads((tmp_path / "autograder" / "results" / "results.json").read_text(encoding="utf-8"))
    return zipped, graded


@pytest.fixture(scope="module")
def graded(autograder_zip, tmp_path_factory):
    """Every submission graded both ways (once for the module's tests)."""
    return {which: both_paths(autograder_zip, tmp_path_factory.mktemp(which), which) for which in SUBMISSIONS}


@pytest.mark.parametrize("which", list(SUBMISSIONS))
def test_the_zip_entry_point_gives_every_entry_grade_gives(graded, which):
    zipped, ours = graded[which]
    assert results_format.problems(zipped) == []
    assert zipped["score"] == ours["score"]
    assert [e["name"] for e in zipped["tests"]] == [e["name"] for e in ours["tests"]]
    for mine, theirs in zip(zipped["tests"], ours["tests"]):
        assert mine == theirs  # name, score, max_score, status, output, visibility: entries carry no timing
    assert zipped["output"] == ours["output"]
    # Only staff's notes may differ (the protections of each place); students do not see extra_data.
    assert zipped["extra_data"]["sandbox"].startswith("sandbox: ")
    if which == "reference":
        assert zipped["score"] == manifest.load().total_points
    if which == "stubs":
        assert zipped["score"] == 0


def test_entries_say_what_the_bad_submission_did(graded):
    zipped, _ = graded["wrong_hanging_crashing"]
    outputs = {e["name"]: e["output"] for e in zipped["tests"]}
    assert any("did not finish within the time limit" in o for n, o in outputs.items() if n.startswith("qkv_arithmetic"))
    assert any("exit status 3" in o or "exited" in o for n, o in outputs.items() if n.startswith("receptive_field")), outputs


def test_visibility_follows_the_assignment(graded):
    visibility = manifest.load().gradescope.visibility
    zipped, _ = graded["reference"]
    hidden = {s.name for p in manifest.load().problems for s in grader.load_tests(p, include_hidden=True) if s.hidden}
    for entry in zipped["tests"]:
        if entry["name"].endswith("output printed by your code"):
            assert entry["visibility"] == visibility.output
        else:
            test = entry["name"].split(": ", 1)[1]
            assert entry["visibility"] == (visibility.hidden if test in hidden else visibility.public), entry["name"]


# ---- No hidden entry reveals a hidden expected value or a line of a hidden test ----

def _numbers(text: str) -> set[str]:
    """Number tokens that identify a recorded value: decimals with 5 significant digits or more, integers of 8 digits or more
    (sizes, shapes and counts in messages are smaller)."""
    found = set()
    for token in re.findall(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?", text):
        digits = len(re.sub(r"\D", "", token.split("e")[0]).lstrip("0"))
        if digits >= 5 and ("." in token or "e" in token) or digits >= 8:
            found.add(token.lstrip("+"))
    return found


def _tokens(value) -> set[str]:
    tree, arrays = value
    found: set[str] = set()

    def walk(node):
        if isinstance(node, bool) or node is None:
            return
        if isinstance(node, (int, float)):
            found.update({str(node), repr(node), f"{node:.10g}", f"{node:.6g}"})
        elif isinstance(node, dict):
            for v in node.values():
                walk(v)
        elif isinstance(node, (list, tuple)):
            for v in node:
                walk(v)

    walk(tree)
    for array in arrays:
        for x in np.asarray(array).ravel()[:100_000]:
            if np.issubdtype(np.asarray(x).dtype, np.number):
                found.update({f"{x:.10g}", f"{x:.6g}", repr(float(x))})
    return found


@pytest.fixture(scope="module")
def hidden_values() -> set[str]:
    """Every value recorded for a hidden call (the reference's answer), as a check would print it, minus public ones."""
    hidden, public = set(), set()
    for module in manifest.load().modules:
        for entry in records.cached_store(module).entries.values():
            if entry.output is not None:
                (public if entry.public else hidden).update(_tokens(entry.output))
    return {t for t in hidden - public if _numbers(t)}


def hidden_test_lines() -> set[str]:
    lines = set()
    for problem in manifest.load().problems:
        for path, hidden in problem.test_files(include_hidden=True):
            if hidden:
                lines |= {line.strip() for line in path.read_text(encoding="utf-8").splitlines()
                          if len(line.strip()) >= 25 and not line.strip().startswith(("#", "@", "def ", "from ", "import "))}
    return lines


@pytest.mark.parametrize("which", ["wrong_hanging_crashing", "first_mistakes", "last_mistakes"])
def test_no_hidden_entry_reveals_a_hidden_value_or_test_line(graded, hidden_values, which):
    lines = hidden_test_lines()
    assert hidden_values and lines
    hidden = {s.name for p in manifest.load().problems for s in grader.load_tests(p, include_hidden=True) if s.hidden}
    for results in graded[which]:  # the entry point's, then grade's
        entries = [e for e in results["tests"] if e["name"].split(": ", 1)[-1] in hidden]
        failed = [e for e in entries if e["score"] < e["max_score"]]
        assert len(failed) >= 10, [e["name"] for e in entries]
        for entry in failed:
            leaked = _numbers(entry["output"]) & hidden_values
            assert not leaked, (entry["name"], leaked, entry["output"])
            quoted = [line for line in lines if line in entry["output"]]
            assert not quoted, (entry["name"], quoted)


# ---- No hidden entry shows a figure derived from the reference's values ----

SCALE = 1.37  # every float the reference recorded, scaled: any figure computed from them (a median, a band) moves


def _scaled(value):
    """A recorded value with every float scaled by ``SCALE`` (integers, booleans and shapes kept)."""
    if isinstance(value, np.ndarray):
        return value * value.dtype.type(SCALE) if np.issubdtype(value.dtype, np.floating) else value
    if isinstance(value, float):
        return value * SCALE
    if isinstance(value, (list, tuple)):
        return type(value)(_scaled(v) for v in value)
    if isinstance(value, dict):
        return {k: _scaled(v) for k, v in value.items()}
    return value


def test_no_failed_hidden_entry_changes_when_the_reference_s_values_do(graded, monkeypatch):
    # The check above finds recorded values themselves; a figure the test derives from them (the median of the
    # reference's errors, an accepted band, a difference from the expected value) reveals them as well. Graded again
    # with every recorded float scaled, each failed hidden entry must read exactly as before: what it says depends on
    # the student's values only.
    _, before = graded["wrong_hanging_crashing"]
    real = records.reference_output
    monkeypatch.setattr(records, "reference_output", lambda *args: _scaled(real(*args)))
    with tempfile.TemporaryDirectory() as folder:
        submission = SUBMISSIONS["wrong_hanging_crashing"](Path(folder) / "submission")
        assignment = manifest.load()
        after = results_json.to_results(grader.grade(submission, assignment, grader.Purpose.GRADING), assignment.gradescope.visibility)
    hidden = {s.name for p in manifest.load().problems for s in grader.load_tests(p, include_hidden=True) if s.hidden}
    failed = [e for e in before["tests"] if e["name"].split(": ", 1)[-1] in hidden and e["score"] < e["max_score"]]
    assert len(failed) >= 10, [e["name"] for e in before["tests"]]
    again = {e["name"]: e["output"] for e in after["tests"]}
    changed = [f"{e['name']}:\n  before: {e['output']!r}\n  after:  {again.get(e['name'])!r}" for e in failed if again.get(e["name"]) != e["output"]]
    assert not changed, "\n".join(changed)


def test_the_run_record_tells_staff_of_the_tests_the_grader_could_not_judge(tmp_path):
    from autograder.gradescope.entry import RunRecord
    from autograder.model.scores import NO_EXPECTED, GradeReport, ProblemResult, TestResult

    unjudged = TestResult("causal_linear_attention", "recurrent_token_by_token", 2.0, False, False, "could not be judged", failure=NO_EXPECTED)
    judged = TestResult("causal_linear_attention", "worked_example", 2.0, False, True)
    report = GradeReport("sub", [ProblemResult("causal_linear_attention", "Causal", [unjudged, judged])])
    RunRecord(tmp_path).run_ended(report)
    notes, refused = run_record.read_run_record(tmp_path)
    assert notes == grader.fault_notes(report) and len(notes) == 1 and not refused
    assert "causal_linear_attention: recurrent_token_by_token" in notes[0] and NO_EXPECTED in notes[0]
