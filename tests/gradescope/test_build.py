"""The Gradescope zip: what it holds, and `otter run` (through the zip's otter plugin) gives the results.json `grade` gives."""

import json
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from autograder.gradescope import build, entry, otter_run
from autograder.model import manifest, paths
from autograder.staff import templates
from tests.helpers import problem_totals, reference_submission, run_grade, zip_folder

pytest.importorskip("otter", reason="otter-grader is a staff dependency (requirements-dev.txt)")


@pytest.fixture(scope="module")
def autograder_zip(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist") / "autograder.zip"
    proc = subprocess.run([sys.executable, "-m", "autograder", "build", "--out", str(out)], cwd=paths.ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    settings = manifest.load().gradescope
    assert settings.describe() in proc.stdout and f"wrote {out}" in proc.stdout  # staff read the settings next to the path
    return out


def otter_process(autograder_zip, submission_zip, out_dir):
    """``otter run`` from another folder: otter imports the zip's plugin from this project (on PYTHONPATH)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(paths.ROOT))
    return subprocess.run(otter_run.command(autograder_zip, submission_zip, out_dir),
                          cwd=out_dir, env=env, capture_output=True, text=True, timeout=900)


def run_otter(autograder_zip, submission_zip, out_dir):
    proc = otter_process(autograder_zip, submission_zip, out_dir)
    assert (out_dir / "results.json").exists(), proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads((out_dir / "results.json").read_text())


def test_zip_holds_every_test_file_and_the_safety_pieces(autograder_zip):
    names = zipfile.ZipFile(autograder_zip).namelist()
    harness = f"{otter_run.HARNESS}/"
    for problem in manifest.load().problems:
        for path, _ in problem.test_files(include_hidden=True):
            assert f"{harness}assignments/{problem.module}/tests/{path.name}" in names
    # otter's runner copies tests/ (it must be there) and would run what it holds: nothing.
    assert [n for n in names if n.startswith(f"{otter_run.TESTS_FOLDER}/")] == [f"{otter_run.TESTS_FOLDER}/"]
    assert "files/grade_submission.ipynb" in names and "files/.OTTER_LOG" not in names  # a submitted one is moved aside
    assert f"{harness}autograder/gradescope/otter_run.py" in names
    assert "bubblewrap" in zipfile.ZipFile(autograder_zip).read("setup.sh").decode()
    assert {"setup.sh", "run_autograder", "environment.yml", "requirements.txt", "constraints.txt"} <= set(names)
    assert zipfile.ZipFile(autograder_zip).read("run_autograder").decode() == build.image_files(manifest.load())["run_autograder"]
    executable = {i.filename for i in zipfile.ZipFile(autograder_zip).infolist() if (i.external_attr >> 16) & 0o111 and not i.is_dir()}
    assert executable == set(build.EXECUTABLE)
    # Gradescope starts the zip's entry point; otter run reaches it through the plugin its otter_config.json lists.
    assert entry.ENTRY_SCRIPT in zipfile.ZipFile(autograder_zip).read("run_autograder").decode()
    assert json.loads(zipfile.ZipFile(autograder_zip).read("otter_config.json"))["plugins"] == [otter_run.PLUGIN]
    assert f"{harness}autograder/gradescope/entry.py" in names


def test_building_the_zip_never_imports_otter():
    code = ("import sys, tempfile, pathlib; from autograder.gradescope import build; "
            "build.build_autograder_zip(pathlib.Path(tempfile.mkdtemp()) / 'a.zip'); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'otter'))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=paths.ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and proc.stdout.strip() == "[]", proc.stdout + proc.stderr[-2000:]


def test_zip_carries_recorded_values_and_no_solution_source(autograder_zip, assignment):
    names = zipfile.ZipFile(autograder_zip).namelist()
    parts = {p for n in names for p in n.split("/")}
    assert not parts & {"reference", "mistakes", "fair", "recording.py"}, sorted(parts & {"reference", "mistakes", "fair", "recording.py"})
    harness = f"{otter_run.HARNESS}/"
    for module in assignment.modules:
        assert f"{harness}assignments/expected/{module}.json" in names and f"{harness}assignments/expected/{module}.npz" in names
        assert f"{harness}assignments/{module}/tests/hidden.py" in names
    # No file of the zip holds a solution line of the reference (the recorded values are data, not code).
    with zipfile.ZipFile(autograder_zip) as zf:
        texts = {n: zf.read(n).decode("utf-8", "replace") for n in names if n.endswith((".py", ".json", ".ipynb", ".yaml", ".md"))}
    for module in assignment.modules:
        secret = {line.strip() for line in templates.solution_lines((paths.REFERENCE / f"{module}.py").read_text())
                  if len(line.strip()) > 20}
        leaks = [(n, line.strip()) for n, t in texts.items() for line in t.splitlines() if line.strip() in secret]
        assert not leaks, leaks[:5]


def _one_wrong_function(tmp_path):
    wrong = (paths.REFERENCE / "qkv_arithmetic.py").read_text() + "\n\ndef attention_scores(Q, K, scale=1.0):\n    return Q @ K.mT\n"
    return reference_submission(tmp_path / "partial", replace={"qkv_arithmetic": wrong})


@pytest.mark.parametrize("which", ["reference", "stub", "partly_wrong"])
def test_otter_run_scores_equal_grade(autograder_zip, tmp_path, which):
    folder = {"reference": lambda: reference_submission(tmp_path / "ref"),
              "stub": lambda: shutil.copytree(paths.TEMPLATES, tmp_path / "stub"),
              "partly_wrong": lambda: _one_wrong_function(tmp_path)}[which]()
    submission_zip = zip_folder(folder, tmp_path / "submission.zip")
    otter_results = run_otter(autograder_zip, submission_zip, tmp_path / "otter")
    _, ours = run_grade(submission_zip, tmp_path / "ours" / "results.json")
    assert problem_totals(otter_results) == problem_totals(ours)
    assert otter_results["score"] == ours["score"]
    assert otter_results["tests"] == ours["tests"]  # entry for entry: names, scores, messages, visibility
    expected = {"reference": manifest.load().total_points, "stub": 0}.get(which)
    if expected is not None:
        assert ours["score"] == expected


def test_submitted_otter_log_is_never_unpickled(autograder_zip, tmp_path):
    marker = tmp_path / "unpickled-marker"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    import pickle

    folder = reference_submission(tmp_path / "sub")
    (folder / ".OTTER_LOG").write_bytes(pickle.dumps(Payload()))
    otter_results = run_otter(autograder_zip, zip_folder(folder, tmp_path / "s.zip"), tmp_path / "otter")
    assert not marker.exists()
    assert otter_results["score"] == manifest.load().total_points


def test_the_harness_in_the_zip_knows_what_student_code_may_import(autograder_zip):
    from autograder.sandbox import environment

    lines = zipfile.ZipFile(autograder_zip).read(f"{otter_run.HARNESS}/requirements.txt").decode().splitlines()
    assert environment.marked(lines) == environment.student_libraries() == ("numpy", "torch")


def test_otter_run_grades_a_submission_holding_an_otter_log_folder_as_grade_does(autograder_zip, tmp_path):
    # A folder where otter's runner looks for its log file: the zip ships no .OTTER_LOG to copy onto it.
    folder = reference_submission(tmp_path / "sub")
    (folder / ".OTTER_LOG").mkdir()
    (folder / ".OTTER_LOG" / "notes.txt").write_text("a folder of the student's\n")
    submission_zip = zip_folder_tree(folder, tmp_path / "s.zip")
    otter_results = run_otter(autograder_zip, submission_zip, tmp_path / "otter")
    _, ours = run_grade(submission_zip, tmp_path / "ours" / "results.json")
    assert otter_results["tests"] == ours["tests"] and otter_results["score"] == ours["score"] == manifest.load().total_points


@pytest.mark.parametrize("shape", ["second_notebook", "file_named_tests"])
def test_what_otter_itself_cannot_take_otter_refuses_and_grade_grades(autograder_zip, tmp_path, shape):
    """otter chooses the one notebook to run and replaces the tests folder before any plugin starts: a submission with a
    notebook of its own, or a file named ``tests``, stops in otter's own code (docs/gradescope.md: "What otter itself cannot
    take"); ``grade``, like Gradescope's run_autograder, grades it as any other."""
    folder = reference_submission(tmp_path / "sub")
    if shape == "second_notebook":
        (folder / "attention.ipynb").write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    else:
        (folder / "tests").write_text("not a folder\n")
    submission_zip = zip_folder_tree(folder, tmp_path / "s.zip")
    proc = otter_process(autograder_zip, submission_zip, tmp_path / "otter")
    said = {"second_notebook": "More than one .ipynb file found in submission", "file_named_tests": "Not a directory"}[shape]
    assert proc.returncode != 0 and said in proc.stderr, proc.stderr[-2000:]
    assert not (tmp_path / "otter" / "results.json").exists()
    _, ours = run_grade(submission_zip, tmp_path / "ours" / "results.json")
    assert ours["score"] == manifest.load().total_points


def zip_folder_tree(folder, out):
    """Zip everything under ``folder`` (folders and dot files too), paths relative to it."""
    with zipfile.ZipFile(out, "w") as zf:
        for path in sorted(folder.rglob("*")):
            zf.write(path, path.relative_to(folder).as_posix())
    return out
