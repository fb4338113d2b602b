"""`grade-all`: a row per submission whatever it holds, resumable, the same CSV for any --jobs."""

import csv
import io
import json
import shutil
import subprocess
import sys

import pytest
import yaml

from autograder.model import manifest, paths
from autograder.staff import batch
from tests.helpers import make_report, reference_submission, zip_folder


def make_dir(root, modules):
    """reference folder, reference zip, stub folder, a file that is not a zip, an empty folder."""
    subs = root / "subs"
    subs.mkdir(parents=True)
    reference_submission(subs / "ref")
    zip_folder(subs / "ref", subs / "refzip.zip", prefix="hw/")
    (subs / "stub").mkdir()
    for module in modules:
        shutil.copy(paths.TEMPLATES / f"{module}.py", subs / "stub" / f"{module}.py")
    (subs / "notes.txt").write_text("not a submission")
    (subs / "empty").mkdir()
    return subs


def read_csv(path):
    return list(csv.DictReader(io.StringIO(path.read_text())))


def one_problem(tmp_path, module="qkv_arithmetic"):
    """An assignment with one problem only (the same problem folder), to keep these tests quick."""
    folder = tmp_path / "assignments"
    folder.mkdir()
    (folder / module).symlink_to(paths.ASSIGNMENTS / module)
    (folder / "assignment.yaml").write_text(yaml.safe_dump(dict(yaml.safe_load(paths.ASSIGNMENT_MANIFEST.read_text()), problems=[module])))
    return manifest.load(folder / "assignment.yaml")


def test_grade_all_command_rows_statuses_and_resume(tmp_path, assignment):
    subs = make_dir(tmp_path, assignment.modules)
    out = tmp_path / "out" / "grades.csv"
    cmd = [sys.executable, "-m", "autograder", "grade-all", str(subs), "--out", str(out), "--jobs", "2"]
    proc = subprocess.run(cmd, cwd=paths.ROOT, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = {r["submission"]: r for r in read_csv(out)}
    assert sorted(rows) == ["empty", "notes.txt", "ref", "refzip.zip", "stub"]
    total = f"{assignment.total_points:g}"
    assert rows["ref"]["total"] == total and rows["refzip.zip"]["total"] == total
    assert rows["ref"]["status"] == rows["refzip.zip"]["status"] == "ok"
    for module in assignment.modules:
        assert rows["ref"][module] == f"{assignment.problem(module).points:g}"
        assert rows["stub"][module] == "0"
    assert rows["stub"]["total"] == "0" and rows["stub"]["status"] == "ok"
    assert rows["empty"]["total"] == "0" and rows["empty"]["status"] == "no module file found"
    assert rows["notes.txt"]["total"] == "0" and "neither a folder nor a .zip" in rows["notes.txt"]["status"]
    for name in rows:
        results = json.loads((out.parent / "results" / f"{name}.json").read_text())
        assert f"{results['score']:g}" == rows[name]["total"]
    summary = (out.parent / "summary.txt").read_text()
    assert "TOTAL" in summary and "5 submissions" in summary and summary.strip() in proc.stdout
    assert (out.parent / "histogram.png").stat().st_size > 0
    assert "[5/5]" in proc.stderr  # plain progress lines when not on a terminal

    stamps = {p.name: p.stat().st_mtime_ns for p in (out.parent / "results").iterdir()}
    proc = subprocess.run(cmd, cwd=paths.ROOT, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0 and "graded 0 now, 5 from earlier runs" in proc.stdout, proc.stdout + proc.stderr
    assert {p.name: p.stat().st_mtime_ns for p in (out.parent / "results").iterdir()} == stamps
    assert {r["submission"]: r for r in read_csv(out)} == rows


def without_seconds(path):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in read_csv(path)]


def test_force_regrades_and_jobs_do_not_change_the_csv(tmp_path):
    small = one_problem(tmp_path)
    subs = make_dir(tmp_path, small.modules)
    out = tmp_path / "out" / "grades.csv"
    first = batch.grade_all(subs, out, jobs=1, assignment=small, stream=io.StringIO())
    assert sorted(first.graded) == ["empty", "notes.txt", "ref", "refzip.zip", "stub"]
    with_one_job = without_seconds(out)
    assert [r["total"] for r in with_one_job] == ["0", "0", "15", "15", "0"]

    again = batch.grade_all(subs, out, jobs=2, assignment=small, stream=io.StringIO())
    assert again.graded == [] and len(again.reports) == 5
    stamps = {p.name: p.stat().st_mtime_ns for p in (out.parent / "records").iterdir()}
    forced = batch.grade_all(subs, out, jobs=2, force=True, assignment=small, stream=io.StringIO())
    assert sorted(forced.graded) == sorted(first.graded)
    assert all(p.stat().st_mtime_ns > stamps[p.name] for p in (out.parent / "records").iterdir())
    assert without_seconds(out) == with_one_job


def test_a_missing_result_is_graded_again_and_a_grader_crash_gets_a_row(tmp_path, monkeypatch):
    small = one_problem(tmp_path)
    subs = make_dir(tmp_path, small.modules)
    out = tmp_path / "out" / "grades.csv"
    batch.grade_all(subs, out, assignment=small, stream=io.StringIO())
    (out.parent / "results" / "ref.json").unlink()
    real = batch.grader.grade

    def grade(path, assignment=None, **kw):
        if path.name == "ref":
            raise RuntimeError("the grader broke")
        return real(path, assignment, **kw)

    monkeypatch.setattr(batch.grader, "grade", grade)
    rerun = batch.grade_all(subs, out, jobs=2, assignment=small, stream=io.StringIO())
    assert rerun.graded == ["ref"]
    rows = {r["submission"]: r for r in read_csv(out)}
    assert len(rows) == 5 and rows["ref"]["total"] == "0" and "grader error: RuntimeError: the grader broke" in rows["ref"]["status"]
    assert rows["refzip.zip"]["total"] == "15"
    assert json.loads((out.parent / "results" / "ref.json").read_text())["score"] == 0


class Stream(io.StringIO):
    def __init__(self, tty):
        super().__init__()
        self.tty = tty

    def isatty(self):
        return self.tty


def test_progress_on_a_terminal_is_one_bar_redrawn_in_place():
    stream = Stream(tty=True)
    progress = batch.Progress(2, stream)
    report = make_report("x", {"m": [("t", 1, True)]})
    progress.update("a", report)
    progress.update("b", report)
    text = stream.getvalue()
    assert text.count("\r[") == 2 and text.count("\n") == 1 and "2/2" in text and "/min" in text and " left" in text


def test_progress_in_a_pipe_is_at_most_ten_lines_plus_the_grader_errors():
    stream = Stream(tty=False)
    progress = batch.Progress(100, stream)
    for i in range(100):
        failed = i == 41
        progress.update(f"student_{i}", make_report("x", {} if failed else {"m": [("t", 1, True)]}, notes=("grader error: boom",)))
    lines = stream.getvalue().splitlines()
    assert [line for line in lines if "student_" in line] == ["grader error on student_41: grader error: boom"]
    steps = [line for line in lines if line.startswith("[")]
    assert [line.split()[0] for line in steps] == [f"[{n}/100]" for n in range(10, 101, 10)]
    assert all("/min" in line and " left" in line for line in steps)


@pytest.mark.parametrize(("seconds", "shown"), [(4.4, "4 s"), (61, "1 min 01 s"), (3725, "1 h 02 min")])
def test_time_left_reads_naturally(seconds, shown):
    assert batch.readable_duration(seconds) == shown
