"""`grade-all`: a row per submission whatever it holds, resumable, the same CSV for any --jobs."""

import csv
import errno
import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from autograder.model import manifest, paths, scores
from autograder.staff import grade_all
from tests.helpers import damage_deflated, make_report, one_problem_root, reference_submission, zip_bytes, zip_folder


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
    # the status is what the summary's "needs attention" says of the submission
    assert rows["stub"]["total"] == "0" and rows["stub"]["status"] == "scored 0"
    assert rows["empty"]["total"] == "0" and rows["empty"]["status"] == "scored 0: no module file found"
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
    first = grade_all.grade_all(subs, out, jobs=1, assignment=small, stream=io.StringIO())
    assert sorted(first.graded) == ["empty", "notes.txt", "ref", "refzip.zip", "stub"]
    with_one_job = without_seconds(out)
    assert [r["total"] for r in with_one_job] == ["0", "0", "15", "15", "0"]

    again = grade_all.grade_all(subs, out, jobs=2, assignment=small, stream=io.StringIO())
    assert again.graded == [] and len(again.reports) == 5
    stamps = {p.name: p.stat().st_mtime_ns for p in (out.parent / "records").iterdir()}
    forced = grade_all.grade_all(subs, out, jobs=2, force=True, assignment=small, stream=io.StringIO())
    assert sorted(forced.graded) == sorted(first.graded)
    assert all(p.stat().st_mtime_ns > stamps[p.name] for p in (out.parent / "records").iterdir())
    assert without_seconds(out) == with_one_job


def test_a_missing_result_is_graded_again_and_a_grader_crash_gets_a_row(tmp_path, monkeypatch):
    small = one_problem(tmp_path)
    subs = make_dir(tmp_path, small.modules)
    out = tmp_path / "out" / "grades.csv"
    grade_all.grade_all(subs, out, assignment=small, stream=io.StringIO())
    (out.parent / "results" / "ref.json").unlink()
    real = grade_all.grader.grade

    def grade(path, assignment=None, **kw):
        if path.name == "ref":
            raise RuntimeError("the grader broke")
        return real(path, assignment, **kw)

    monkeypatch.setattr(grade_all.grader, "grade", grade)
    rerun = grade_all.grade_all(subs, out, jobs=2, assignment=small, stream=io.StringIO())
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
    progress = grade_all.Progress(2, stream)
    report = make_report("x", {"m": [("t", 1, True)]})
    progress.update("a", report)
    progress.update("b", report)
    text = stream.getvalue()
    # tqdm's bar, redrawn in place (a carriage return per redraw, one newline at the end), with done/total, rate, time left
    assert text.count("\r") >= 2 and text.count("\n") == 1 and text.rstrip("\n").rsplit("\r", 1)[1].count("2/2") == 1
    assert "sub/s" in text and " left" in text and text.rstrip("\n").endswith(" left  b")  # the last name graded


def test_progress_in_a_pipe_is_at_most_ten_lines_plus_the_grader_errors():
    stream = Stream(tty=False)
    progress = grade_all.Progress(100, stream)
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
    assert grade_all.readable_duration(seconds) == shown


# ---- with a fake grader: what grade-all does around grading, quickly ----

GOOD = "# good\n"


class FakeSession:
    def close(self):
        pass


def fake_grade(path, assignment=None, session=None, tests=None, modules=None, **_):
    """A grade from the files alone: every test passes in a module holding GOOD, every other test fails in one without
    it; a missing or unreadable module is recorded as the grader records it. The notes say what was graded."""
    from autograder.grading import submission

    try:
        located = submission.locate(Path(path), assignment.modules)
    except submission.SubmissionError as exc:
        located = submission.Located(problems={m: str(exc) for m in assignment.modules})
    problems = []
    for problem in assignment.problems:
        if modules is not None and problem.module not in modules:
            continue
        specs, source = tests[problem.module], located.sources.get(problem.module)
        result = scores.ProblemResult(problem.module, problem.title)
        if source is None:
            result.status = located.problems[problem.module]
            result.kind = located.kind(problem.module)
        good = source is not None and GOOD.encode() in source
        result.tests = [scores.TestResult(problem.module, s.name, s.points, s.hidden, good or (source is not None and i % 2 == 0))
                        for i, s in enumerate(specs)]
        problems.append(result)
    return scores.GradeReport(str(path), problems, [f"graded {modules or 'all'}"], 1.0)


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setattr(grade_all.grader, "grade", fake_grade)
    monkeypatch.setattr(grade_all.grader, "reusable_session", lambda assignment: FakeSession())


def two_problems(tmp_path):
    folder = tmp_path / "assignments"
    folder.mkdir()
    for module in ("qkv_arithmetic", "complexity"):
        (folder / module).symlink_to(paths.ASSIGNMENTS / module)
    # the real manifest (its problem_defaults; points come from the tests), with two of its problems
    (folder / "assignment.yaml").write_text(yaml.safe_dump(dict(yaml.safe_load(paths.ASSIGNMENT_MANIFEST.read_text()),
                                                                problems=["qkv_arithmetic", "complexity"])))
    return manifest.load(folder / "assignment.yaml")


def fake_folder(root, count=5):
    """Submissions ``s0``..: both modules good, one good, none, an unreadable zip, ..."""
    subs = root / "subs"
    for i in range(count):
        (subs / f"s{i}").mkdir(parents=True)
        for j, module in enumerate(("qkv_arithmetic", "complexity")):
            (subs / f"s{i}" / f"{module}.py").write_text(GOOD if (i + j) % 3 else "# wrong\n")
    (subs / "broken.zip").write_bytes(b"PK\x03\x04 cut short")
    return subs


def records_of(out):
    return {p.stem: json.loads(p.read_text()) for p in sorted((out.parent / "records").glob("*.json"))}


def test_a_rerun_regrades_what_a_changed_fingerprint_affects_and_says_so(tmp_path, fake, monkeypatch):
    two = two_problems(tmp_path)
    subs, out = fake_folder(tmp_path), tmp_path / "out" / "grades.csv"
    first = grade_all.grade_all(subs, out, assignment=two, stream=io.StringIO())
    assert len(first.graded) == 6 and first.stale == {}
    current = dict(first.fingerprint)
    assert set(current) == {"qkv_arithmetic", "complexity", "harness"}
    for name, record in records_of(out).items():
        assert record["fingerprint"] == current | grade_all.fingerprint.submission(subs / name, two.modules)
    assert grade_all.grade_all(subs, out, assignment=two, stream=io.StringIO()).graded == []

    real = grade_all.fingerprint.of
    monkeypatch.setattr(grade_all.fingerprint, "of", lambda a: dict(real(a), complexity="changed"))
    before = records_of(out)
    again = grade_all.grade_all(subs, out, assignment=two, stream=io.StringIO())
    assert sorted(again.graded) == sorted(first.graded) and set(map(tuple, again.stale.values())) == {("complexity",)}
    assert grade_all.stale_summary(again) == ("6 earlier records were graded with other tests, points, recorded values or harness "
                                          "code: graded again what changed: complexity (6)")
    after = records_of(out)
    for name, record in after.items():
        assert record["notes"] == ["graded ['complexity']"] and record["fingerprint"]["complexity"] == "changed"
        assert record["problems"][0] == before[name]["problems"][0]  # qkv_arithmetic kept as it was
        assert [p["module"] for p in record["problems"]] == ["qkv_arithmetic", "complexity"]

    monkeypatch.setattr(grade_all.fingerprint, "of", lambda a: dict(real(a), complexity="changed", harness="new code"))
    whole = grade_all.grade_all(subs, out, assignment=two, stream=io.StringIO())
    assert len(whole.graded) == 6 and all(r["notes"] == ["graded all"] for r in records_of(out).values())
    assert "every problem (6)" in grade_all.stale_summary(whole)


def test_the_assignment_is_checked_whole_before_any_submission(tmp_path, fake):
    root = one_problem_root(tmp_path, "qkv_arithmetic")
    hidden = root / "assignments" / "qkv_arithmetic" / "tests" / "hidden.py"
    # a test the manifest's reading of the decorators cannot see (an aliased decorator): its 2 points are out of step
    hidden.write_text(hidden.read_text() + "\n\ncase = test_case\n\n\n@case(points=2, hidden=True)\n"
                      "def test_unseen(qkv_arithmetic):\n    pass\n")
    broken = manifest.load(root / "assignments" / "assignment.yaml")
    assert broken.problem("qkv_arithmetic").points == manifest.load().problem("qkv_arithmetic").points
    subs, out = fake_folder(tmp_path), tmp_path / "out" / "grades.csv"
    with pytest.raises(grade_all.RunError, match=r"nothing was graded or written: ManifestError: .*tests: the test files define tests worth \d+ points, but their @test_case decorators read as written say"):
        grade_all.grade_all(subs, out, assignment=broken, stream=io.StringIO())
    assert not out.parent.exists()


def test_a_full_disk_stops_with_a_message_and_the_rerun_resumes(tmp_path, fake, monkeypatch):
    small = one_problem(tmp_path)
    subs, out = fake_folder(tmp_path), tmp_path / "out" / "grades.csv"
    monkeypatch.setattr(grade_all.shutil, "disk_usage", lambda path: shutil._ntuple_diskusage(10 << 30, 10 << 30, 5 << 20))
    with pytest.raises(grade_all.RunError, match=r"has 5 MB free, and grading 6 submissions needs about 21 MB"):
        grade_all.grade_all(subs, out, assignment=small, stream=io.StringIO())
    assert not out.parent.exists()
    monkeypatch.undo()
    monkeypatch.setattr(grade_all.grader, "grade", fake_grade)
    monkeypatch.setattr(grade_all.grader, "reusable_session", lambda assignment: FakeSession())

    real, calls = grade_all.write_text, []

    def fill_up(path, text):
        calls.append(path)
        if len(calls) > 2 and path.parent.name == "records":
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(path, text)

    monkeypatch.setattr(grade_all, "write_text", fill_up)
    with pytest.raises(grade_all.RunError, match=r"is full \(No space left on device\); \d submissions graded in this run are kept"):
        grade_all.grade_all(subs, out, jobs=1, assignment=small, stream=io.StringIO())
    kept = set(records_of(out))
    assert 0 < len(kept) < 6
    monkeypatch.setattr(grade_all, "write_text", real)
    rest = grade_all.grade_all(subs, out, jobs=1, assignment=small, stream=io.StringIO())
    assert set(rest.graded) == {"broken.zip", "s0", "s1", "s2", "s3", "s4"} - kept and len(read_csv(out)) == 6


def test_an_unreadable_submission_says_so(tmp_path, fake):
    small = one_problem(tmp_path)
    subs, out = fake_folder(tmp_path), tmp_path / "out" / "grades.csv"
    grade_all.grade_all(subs, out, assignment=small, stream=io.StringIO())
    rows = {r["submission"]: r for r in read_csv(out)}
    assert rows["broken.zip"]["status"].startswith("could not read: broken.zip is neither a folder nor a .zip")


def fake_export(path, count=9):
    """A zipped export: ``count`` submissions of the fake's kinds, a group, a student who submitted twice, a listed
    submission without a folder."""
    files, entries = {}, []
    for i in range(count):
        name = f"submission_{100 + i}"
        files[f"{name}/qkv_arithmetic.py"] = GOOD if i % 3 else "# wrong\n"
        student = "" if i != 4 else "  - :name: Pat Two\n    :sid: '1004b'\n    :email: pat@x\n"
        email = "pat@x" if i == 7 else f"s{i}@x"
        entries.append(f"{name}:\n  :submitters:\n  - :name: Student {i}\n    :sid: '{1000 + i}'\n    :email: {email}\n{student}"
                       f"  :created_at: 2024-03-0{1 + i % 5} 10:00:00.000000000 -08:00\n")
    entries.append("submission_999:\n  :submitters:\n  - :name: No Folder\n    :sid: '999'\n    :email: nf@x\n")
    files["submission_metadata.yml"] = "".join(entries)
    path.write_bytes(zip_bytes({f"export/{k}": v for k, v in files.items()}))
    return path


def outputs(out):
    """What a run leaves that must not depend on how it was split: the CSVs, the summary, every record and result."""
    found = {name: (out.parent / name).read_text() for name in ("grades.csv", "gradescope_upload.csv", "summary.txt")}
    for kind in ("records", "results"):
        found |= {f"{kind}/{p.name}": p.read_text() for p in sorted((out.parent / kind).glob("*.json"))}
    return found


def finish(opened):
    grade_all.write_summary(opened)
    grade_all.write_upload(opened)
    return opened


def test_three_shards_merged_equal_one_run_and_shards_of_other_tests_are_refused(tmp_path, fake, monkeypatch):
    small = one_problem(tmp_path)
    export = fake_export(tmp_path / "export.zip")
    single = tmp_path / "single" / "grades.csv"
    finish(grade_all.grade_all(export, single, jobs=2, assignment=small, stream=io.StringIO()))
    shards = [tmp_path / f"shard{k}" / "grades.csv" for k in (1, 2, 3)]
    parts = [grade_all.grade_all(export, out, jobs=1, assignment=small, stream=io.StringIO(), shard=(k, 3)).graded
             for k, out in enumerate(shards, 1)]
    assert sorted(sum(parts, [])) == sorted(f"submission_{100 + i}" for i in range(9)) and all(len(p) == 3 for p in parts)
    merged_out = tmp_path / "merged" / "grades.csv"
    opened, found = grade_all.open_batch(export, merged_out, small, check=False)
    finish(grade_all.merge(opened, [s.parent for s in reversed(shards)], found))
    assert outputs(merged_out) == outputs(single)

    opened, _ = grade_all.open_batch(export, tmp_path / "m2" / "grades.csv", small, check=False)
    with pytest.raises(grade_all.RunError, match=r"shards 2/3 are missing"):
        grade_all.merge(opened, [shards[0].parent, shards[2].parent])
    record = next((shards[1].parent / "records").glob("*.json"))
    data = json.loads(record.read_text())
    data["fingerprint"]["qkv_arithmetic"] = "graded with other tests"
    record.write_text(json.dumps(data))
    with pytest.raises(grade_all.RunError, match=rf"1 of the shards' 9 records are out of date for this checkout .*\n"
                                             rf"  qkv_arithmetic: its tests, points or recorded values: 1 submissions \({record.stem}\)\n"
                                             rf"Grade again what changed .*\n  grade-all {export} --shard 2/3 --out {shards[1]}$"):
        grade_all.merge(opened, [s.parent for s in shards])
    assert not (tmp_path / "m2").exists()


def test_a_merge_refuses_shards_this_checkout_would_grade_again(tmp_path, fake, monkeypatch):
    """Every shard graded alike, but before a test's points changed, or a problem was added, or a file was replaced."""
    small = one_problem(tmp_path)
    export = fake_export(tmp_path / "export.zip")
    shards = [tmp_path / f"shard{k}" / "grades.csv" for k in (1, 2)]
    for k, out in enumerate(shards, 1):
        grade_all.grade_all(export, out, jobs=1, assignment=small, stream=io.StringIO(), shard=(k, 2))
    real = grade_all.fingerprint.of

    def merged(name, found=True):
        opened, present = grade_all.open_batch(export, tmp_path / name / "grades.csv", small, check=False)
        return grade_all.merge(opened, [s.parent for s in shards], present if found else None)

    assert len(merged("fine").reports) == 9
    monkeypatch.setattr(grade_all.fingerprint, "of", lambda a: dict(real(a), qkv_arithmetic="its points changed"))
    with pytest.raises(grade_all.RunError, match=r"9 of the shards' 9 records are out of date(.|\n)*qkv_arithmetic: its tests, points "
                                             r"or recorded values: 9 submissions(.|\n)*--shard 1/2(.|\n)*--shard 2/2"):
        merged("points")
    monkeypatch.setattr(grade_all.fingerprint, "of", lambda a: dict(real(a), new_problem="5 points"))
    with pytest.raises(grade_all.RunError, match=r"new_problem: a problem the record does not have \(new since\): 9 submissions"):
        merged("new")
    assert not (tmp_path / "points").exists() and not (tmp_path / "new").exists()
    monkeypatch.setattr(grade_all.fingerprint, "of", real)
    with zipfile.ZipFile(export, "a") as zf, pytest.warns(UserWarning, match="Duplicate name"):
        zf.writestr("export/submission_100/qkv_arithmetic.py", GOOD)  # replaced after its shard graded it: the last copy is read
    with pytest.raises(grade_all.RunError, match=r"the submission's qkv_arithmetic.py: 1 submissions \(submission_100\)"
                                             r"(.|\n)*--shard 1/2 --out"):
        merged("files")
    assert len(merged("without files", found=False).reports) == 9  # no submission to compare: what grades is judged
    record = shards[0].parent / "records" / "submission_102.json"  # a job that died: no problems, no digests
    record.write_text(json.dumps(dict(json.loads(record.read_text()), problems=[], fingerprint={})))
    with pytest.raises(grade_all.RunError, match=r"the grader failed on it in the shard's run: 1 submissions \(submission_102\)"):
        merged("died", found=False)


def test_the_upload_takes_each_students_latest_submission(tmp_path, fake):
    small = one_problem(tmp_path)
    out = tmp_path / "out" / "grades.csv"
    done = grade_all.grade_all(fake_export(tmp_path / "export.zip"), out, assignment=small, stream=io.StringIO())
    upload = grade_all.write_upload(done)
    # pat@x is in submission_104 (created March 5, with Student 4) and submission_107 (March 3): 104 is the latest.
    rows = {r[2]: r for r in upload.rows}
    assert rows["pat@x"] == ["Pat Two", "1004b", "pat@x", f"{done.reports['submission_104'].points:g}"]
    assert "submission_107: Student 7 has a later submission, submission_104" in upload.left_out
    assert any("submission_104: Pat Two" in c and "submission_107: Student 7" in c for c in upload.conflicts)
    assert "submission_999: not graded (submission_metadata.yml lists submission_999 but the export has no folder submission_999/)" in upload.left_out


def open_npz_files():
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        found += [target] if target.endswith(".npz") else []
    return found


def test_the_check_leaves_no_recorded_values_open_for_the_jobs_to_share(tmp_path):
    """A job forked with the parent's open .npz shares its file offset with the other jobs: reads would interleave."""
    grade_all.check_assignment(one_problem(tmp_path))
    assert open_npz_files() == []


def test_records_that_cannot_be_opened_stop_the_run_before_any_submission(tmp_path, monkeypatch):
    """One submission with a problem that cannot be judged is a fault to report; a whole class of them is a run to
    refuse: nothing graded or written, the file and the fix named."""
    from autograder.expected import records

    shipped = tmp_path / "expected"
    shipped.mkdir()
    (shipped / "qkv_arithmetic.json").write_text("[")
    monkeypatch.setattr(records, "shipped_folder", lambda root=None: shipped)
    monkeypatch.setattr(records, "_unusable", {})
    with pytest.raises(grade_all.RunError, match=r"cannot be graded.*qkv_arithmetic.json are damaged"):
        grade_all.check_assignment(one_problem(tmp_path))


def test_a_submission_the_grader_failed_on_is_graded_again_by_a_rerun(tmp_path, fake, monkeypatch):
    small = one_problem(tmp_path)
    subs, out = fake_folder(tmp_path), tmp_path / "out" / "grades.csv"

    def failing(path, *args, **kw):
        if Path(path).name == "s1":
            raise RuntimeError("a job died")
        return fake_grade(path, *args, **kw)

    monkeypatch.setattr(grade_all.grader, "grade", failing)
    first = grade_all.grade_all(subs, out, assignment=small, stream=io.StringIO())
    assert first.reports["s1"].problems == [] and first.stale == {}
    monkeypatch.setattr(grade_all.grader, "grade", fake_grade)
    again = grade_all.grade_all(subs, out, assignment=small, stream=io.StringIO())
    assert again.graded == ["s1"] and again.reports["s1"].problems
    assert grade_all.stale_summary(again) == "1 submissions the grader had failed on in an earlier run: graded again"


def test_a_rerun_grades_again_the_modules_whose_files_changed_and_says_so_before_grading(tmp_path, fake):
    two = two_problems(tmp_path)
    subs, out = fake_folder(tmp_path), tmp_path / "out" / "grades.csv"
    grade_all.grade_all(subs, out, assignment=two, stream=io.StringIO())
    before = records_of(out)
    assert before["s0"]["problems"][0]["tests"][1]["passed"] is False  # s0's qkv_arithmetic holds the wrong answer
    (subs / "s0" / "qkv_arithmetic.py").write_text(GOOD)  # the solution copied in
    (subs / "s1" / "complexity.py").rename(subs / "s1" / "complexity (1).py")  # a file renamed counts as a change too
    stream = io.StringIO()
    again = grade_all.grade_all(subs, out, assignment=two, stream=stream)
    assert sorted(again.graded) == ["s0", "s1"]
    assert again.stale == {"s0": ["files:qkv_arithmetic"], "s1": ["files:complexity"]}
    after = records_of(out)
    assert after["s0"]["notes"] == ["graded ['qkv_arithmetic']"] and all(t["passed"] for t in after["s0"]["problems"][0]["tests"])
    assert after["s0"]["problems"][1] == before["s0"]["problems"][1]  # complexity kept as it was
    assert after["s1"]["problems"][1]["kind"] == scores.MISNAMED
    said = stream.getvalue()
    assert said.splitlines()[:2] == [
        "resuming: 4 of 6 submissions already graded by an earlier run are kept; grading 2",
        "2 submissions' files changed since their record: graded again the problems whose module changed: "
        "qkv_arithmetic (1), complexity (1)"]
    assert said.index("files changed") < said.index("[1/2]")  # before the progress
    assert grade_all.done_line(again) == ("graded 2 now (2 of them in part: 2 problems graded again, 2 problems kept from "
                                      "earlier runs), 4 from earlier runs")
    assert grade_all.grade_all(subs, out, assignment=two, stream=io.StringIO()).graded == []


def test_one_upload_rule_packaging_costs_the_problem_damage_is_left_out_and_the_status_agrees(tmp_path, fake):
    """A module found twice is the student's packaging: its problem scores 0 and the rest is uploaded. A member the
    download damaged (deflate error) cannot be read: listed, left out of the upload, never a grader error."""
    two = two_problems(tmp_path)
    files, entries = {}, []
    for i in range(4):
        name = f"submission_{i}"
        files |= {f"{name}/qkv_arithmetic.py": GOOD, f"{name}/complexity.py": GOOD}
        entries.append(f"{name}:\n  :submitters:\n  - :name: S{i}\n    :sid: '{i}'\n    :email: s{i}@x\n")
    files["submission_1/copy/complexity.py"] = GOOD  # found twice
    files["submission_2/Complexity (1).py"] = files.pop("submission_2/complexity.py")  # misnamed
    files["submission_metadata.yml"] = "".join(entries)
    export = tmp_path / "export.zip"
    export.write_bytes(damage_deflated(zip_bytes(files), "submission_3/complexity.py"))
    out = tmp_path / "out" / "grades.csv"
    done = grade_all.grade_all(export, out, assignment=two, stream=io.StringIO())
    upload = grade_all.write_upload(done)
    rows = {r["submission"]: r for r in read_csv(out)}
    assert rows["submission_0"]["status"] == "ok"
    assert rows["submission_1"]["status"].startswith("complexity: complexity.py was found 2 times (complexity.py, copy/complexity.py)")
    assert rows["submission_2"]["status"].startswith("complexity: complexity.py was not found in the submission; did you mean "
                                                     "Complexity (1).py?")
    assert rows["submission_3"]["status"].startswith("could not read complexity: complexity.py could not be read: its bytes "
                                                     "in the zip are damaged (Error -3 while decompressing data")
    kept = f"{two.problem('qkv_arithmetic').points:g}"  # the problem not lost to packaging
    assert [r[1] for r in upload.rows] == ["0", "1", "2"] and [r[3] for r in upload.rows][1:] == [kept, kept]
    assert len(upload.left_out) == 1 and upload.left_out[0].startswith("submission_3: could not read complexity") \
        and upload.left_out[0].endswith("download the export again")
    attention = {a.submission: "; ".join(a.reasons) for a in grade_all.summary.class_stats.needs_attention(done.reports, done.roster)}
    assert attention == {name: rows[name]["status"] for name in ("submission_1", "submission_2", "submission_3")}


def test_a_run_removes_the_sandbox_folders_a_killed_run_left(tmp_path, fake, monkeypatch):
    from autograder.sandbox import runtime
    from tests.sandbox.test_runtime import dead_pid

    temp = tmp_path / "tmp"
    (temp / f"autograder-box-{dead_pid()}-k9" / "submissions").mkdir(parents=True)
    monkeypatch.setattr(runtime.tempfile, "tempdir", str(temp))
    monkeypatch.setattr(runtime, "TMP_FOLDERS", ())
    stream = io.StringIO()
    grade_all.grade_all(fake_folder(tmp_path), tmp_path / "out" / "grades.csv", assignment=one_problem(tmp_path), stream=stream)
    assert stream.getvalue().splitlines()[0] == f"removed 1 sandbox folders (students' modules) a killed run left in {temp}"
    assert list(temp.iterdir()) == []
