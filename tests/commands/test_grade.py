"""`grade` end to end: full marks for the reference, zero for the stubs, a valid results.json always."""

import json
import zipfile

import pytest

from autograder.model import manifest, paths
from tests.helpers import problem_totals, reference_submission, run_grade, zip_folder

TEST_KEYS = {"name", "score", "max_score", "status", "output", "visibility"}


def assert_schema(results):
    assert isinstance(results["score"], (int, float)) and isinstance(results["execution_time"], (int, float))
    for test in results["tests"]:
        assert TEST_KEYS <= set(test), test
        assert test["status"] in ("passed", "failed") and test["visibility"] in ("visible", "after_published")
        assert any(test["name"].startswith(m) for m in manifest.load().modules)
    assert abs(results["score"] - sum(t["score"] for t in results["tests"])) < 1e-9


@pytest.fixture(scope="module")
def reference_results(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ref")
    zipped = zip_folder(reference_submission(tmp / "sub"), tmp / "sub.zip", prefix="my_homework/")
    proc, results = run_grade(zipped, tmp / "out" / "results.json")
    assert proc.returncode == 0, proc.stderr
    return results


def test_reference_gets_full_marks(reference_results, assignment):
    assert_schema(reference_results)
    assert reference_results["score"] == assignment.total_points
    failed = [t["name"] + ": " + t["output"][:200] for t in reference_results["tests"] if t["status"] != "passed"]
    assert not failed


def test_hidden_tests_are_published_after_grades(reference_results):
    visibilities = {t["visibility"] for t in reference_results["tests"]}
    assert visibilities == {"visible", "after_published"}


def test_stub_gets_zero(tmp_path, assignment):
    proc, results = run_grade(paths.TEMPLATES, tmp_path / "results.json")
    assert proc.returncode == 0
    assert_schema(results)
    assert results["score"] == 0
    assert all("not implemented yet" in t["output"] for t in results["tests"] if t["max_score"] > 0)


@pytest.mark.parametrize("make", ["empty_dir", "not_a_zip", "missing_path"])
def test_unreadable_submissions_still_write_results(tmp_path, make):
    target = {"empty_dir": tmp_path / "empty", "not_a_zip": tmp_path / "sub.zip", "missing_path": tmp_path / "nope"}[make]
    if make == "empty_dir":
        target.mkdir()
    if make == "not_a_zip":
        target.write_bytes(b"this is not a zip")
    proc, results = run_grade(target, tmp_path / "results.json")
    assert proc.returncode == 0
    assert_schema(results)
    assert results["score"] == 0
    text = json.dumps(results)
    assert ("not found" in text) or ("not a readable zip" in text) or ("does not exist" in text) or ("neither" in text)


def test_an_out_that_cannot_be_written_is_explained_before_grading(tmp_path):
    import subprocess
    import sys

    (tmp_path / "a_file").write_text("")
    for out, says in ((tmp_path / "a_file" / "results.json", "a_file is a file, not a folder"),
                      (tmp_path, f"e.g. --out {tmp_path / 'results.json'}")):
        proc = subprocess.run([sys.executable, "-m", "autograder", "grade", str(paths.REFERENCE), "--out", str(out), "-q"],
                              cwd=paths.ROOT, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2 and says in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_broken_modules_cost_only_their_own_problem(tmp_path, assignment):
    modules = assignment.modules
    if len(modules) < 3:
        pytest.skip("needs three problems in the manifest")
    loop = (paths.REFERENCE / "qkv_arithmetic.py").read_text() + "\n\ndef argmax_attention(Q, K, V):\n    while True:\n        pass\n"
    exits = "import os\nos._exit(3)\n"
    syntax = "def broken(:\n    pass\n"
    broken = {modules[0]: loop, modules[1]: exits, modules[2]: syntax}
    proc, results = run_grade(reference_submission(tmp_path / "sub", replace=broken), tmp_path / "results.json")
    assert proc.returncode == 0
    totals = problem_totals(results)
    for problem in assignment.problems:
        if problem.module in broken:
            assert totals[problem.module] < problem.points, problem.module
        else:
            assert totals[problem.module] == problem.points, problem.module
    outputs = {m: " ".join(t["output"] for t in results["tests"] if t["name"].startswith(m)) for m in broken}
    assert "did not finish within the time limit" in outputs[modules[0]]
    assert "could not be imported" in outputs[modules[1]] and "status 3" in outputs[modules[1]]
    assert "SyntaxError" in outputs[modules[2]] and "line 1" in outputs[modules[2]]
    assert totals[modules[0]] > 0  # the functions that do not loop keep their points


def test_zip_with_files_at_top_level(tmp_path, assignment):
    folder = reference_submission(tmp_path / "sub", drop=(assignment.modules[-1],))
    proc, results = run_grade(zip_folder(folder, tmp_path / "flat.zip"), tmp_path / "results.json")
    totals = problem_totals(results)
    assert totals[assignment.modules[-1]] == 0
    assert "was not found" in json.dumps(results)
    assert sum(totals.values()) == assignment.total_points - assignment.problems[-1].points
    with zipfile.ZipFile(tmp_path / "flat.zip") as zf:
        assert all("/" not in n for n in zf.namelist())


def test_results_name_the_sandbox_for_staff_only(reference_results):
    assert reference_results["extra_data"]["sandbox"].startswith("sandbox: ")
    assert "sandbox:" not in reference_results["output"]


def test_a_grader_that_dies_leaves_what_it_graded(tmp_path, assignment, killed_run_tmp):
    """results.json is rewritten after each problem: kill the grader while the second problem hangs."""
    import os
    import signal
    import subprocess
    import sys
    import time

    first, second = assignment.modules[0], assignment.modules[1]
    hang = (paths.REFERENCE / f"{second}.py").read_text() + "\n\nimport time\ntime.sleep(1000)\n"
    sub = reference_submission(tmp_path / "sub", replace={second: hang})
    out = tmp_path / "results.json"
    proc = subprocess.Popen([sys.executable, "-m", "autograder", "grade", str(sub), "--out", str(out), "-q"], cwd=paths.ROOT,
                            env=dict(os.environ, TMPDIR=str(killed_run_tmp)), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        while not out.exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
        assert out.exists(), "no results.json while the second problem was being graded"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    results = json.loads(out.read_text())
    assert_schema(results)
    totals = problem_totals(results)
    assert totals[first] == assignment.problem(first).points
    waiting = [t["output"] for t in results["tests"] if t["name"].startswith(assignment.modules[-1])]
    assert waiting and all("not graded yet" in text for text in waiting)
