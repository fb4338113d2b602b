"""`grade-all` on a Gradescope export, end to end: names in the CSV, the upload CSV, the class summary, a regrade diff.

The export is synthetic (several students, a group, an empty submission, a zip inside a folder, a
submitter without SID or email, an entry without a folder), zipped as Gradescope gives it, and graded
through the command line on a one-problem copy of the project (AUTOGRADER_ROOT) to stay quick.
"""

import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

from autograder.model import paths
from autograder.staff import solutions
from tests.helpers import one_problem_root, zip_bytes

MODULE = "qkv_arithmetic"
CHANGED_TEST = "softmax_attention_worked_example_scaled_down"
METADATA = """\
submission_101:
  :submitters:
  - :name: Alice Ng
    :sid: '1001'
    :email: alice@uni.edu
  :created_at: 2024-03-01 10:00:00.000000000 -08:00
  :score: 15.0
submission_102:
  :submitters:
  - :name: Bob "Bobby" Tables, Jr.
    :sid: 1002
    :email: bob@uni.edu
  :score: 9.0
submission_103:
  :submitters:
  - :name: Carol Diaz
    :sid: '1003'
    :email: carol@uni.edu
  - :name: Dan Ek
    :sid: '1004'
    :email: dan@uni.edu
submission_104:
  :submitters:
  - :name: Erin Fox
    :sid: '1005'
    :email: erin@uni.edu
submission_105:
  :submitters:
  - :name: Gus Hale
submission_106:
  :submitters:
  - :name: Ida Jones
    :sid: '1007'
    :email: ida@uni.edu
"""
GRADED = ["submission_101", "submission_102", "submission_103", "submission_104", "submission_105"]



def write_export(path):
    mistake = {v.name: v.source() for v in solutions.mistakes(MODULE)}
    top = "assignment_2417_export/"
    path.write_bytes(zip_bytes({
        f"{top}submission_metadata.yml": METADATA,
        f"{top}submission_101/{MODULE}.py": solutions.reference_path(MODULE).read_text(),
        f"{top}submission_102/{MODULE}.py": mistake["scale_ignored"],
        f"{top}submission_103/homework.zip": zip_bytes({f"hw/{MODULE}.py": mistake["causal_mask_keeps_future"], "hw/notes.txt": "x"}),
        f"{top}submission_104/": "",
        f"{top}submission_105/{MODULE}.py": mistake["scale_ignored"],
    }))
    return path


def change_points(root, test, more):
    """In a project copy: ``test`` of MODULE is worth ``more`` points more (the problem's and the assignment's totals
    follow, as points live only at the tests); returns its points before and after."""
    public = root / "assignments" / MODULE / "tests" / "public.py"
    text = public.read_text()
    found = re.search(rf"@test_case\(points=([\d.]+), hidden=False\)\ndef test_{test}\(", text)
    assert found, test
    before = float(found.group(1))
    public.write_text(text.replace(found.group(0), f"@test_case(points={before + more:g}, hidden=False)\ndef test_{test}("))
    return before, before + more


def grade_all(root, *args):
    env = dict(os.environ, AUTOGRADER_ROOT=str(root))
    return subprocess.run([sys.executable, "-m", "autograder", "grade-all", *map(str, args)], cwd=paths.PACKAGE_DIR.parent,
                          env=env, capture_output=True, text=True, timeout=900)


def read_csv(path):
    return list(csv.DictReader(io.StringIO(path.read_text())))


def summary_section(text, title):
    """The lines of one problem's block in a summary section (after the title and the problem's name)."""
    return next(part for part in text.split("\n\n") if part.startswith(title)).splitlines()[2:]


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("grade_all_export")
    root = one_problem_root(tmp, MODULE)
    export = write_export(tmp / "export.zip")
    out = tmp / "first" / "grades.csv"
    proc = grade_all(root, export, "--out", out, "--jobs", "2")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return tmp, root, export, out, proc


def test_the_csv_has_a_row_per_student_with_names_and_ids(first_run):
    _, _, _, out, proc = first_run
    rows = read_csv(out)
    assert [(r["name"], r["sid"], r["email"], r["submission"]) for r in rows] == [
        ("Alice Ng", "1001", "alice@uni.edu", "submission_101"),
        ('Bob "Bobby" Tables, Jr.', "1002", "bob@uni.edu", "submission_102"),
        ("Carol Diaz", "1003", "carol@uni.edu", "submission_103"),
        ("Dan Ek", "1004", "dan@uni.edu", "submission_103"),
        ("Erin Fox", "1005", "erin@uni.edu", "submission_104"),
        ("Gus Hale", "", "", "submission_105"),
        ("Ida Jones", "1007", "ida@uni.edu", "submission_106"),
    ]
    by_submission = {r["submission"]: r for r in rows}
    assert by_submission["submission_101"]["total"] == "15" and by_submission["submission_101"]["status"] == "ok"
    assert rows[2]["total"] == rows[3]["total"] and 0 < float(rows[2]["total"]) < 15  # the group's zip inside its folder was graded
    assert by_submission["submission_104"]["total"] == "0" and "no module file found" in by_submission["submission_104"]["status"]
    assert float(by_submission["submission_105"]["total"]) > 0
    assert by_submission["submission_105"]["status"] == "ok"
    assert by_submission["submission_106"]["total"] == "" and "no folder submission_106/" in by_submission["submission_106"]["status"]
    for name in GRADED:
        results = json.loads((out.parent / "results" / f"{name}.json").read_text())
        assert f"{results['score']:g}" == by_submission[name]["total"]
    assert "warning: submission_metadata.yml lists submission_106 but the export has no folder submission_106/" in proc.stderr
    progress = [line for line in proc.stderr.splitlines() if line.startswith("[")]
    assert progress and progress[-1].startswith("[5/5]") and not any("submission_" in line for line in progress)


def test_the_upload_csv_is_well_formed(first_run):
    _, _, _, out, proc = first_run
    text = (out.parent / "gradescope_upload.csv").read_text()
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["Name", "SID", "Email", "Total Score"] and all(len(r) == 4 for r in rows)
    totals = {(r["name"], r["email"]): r["total"] for r in read_csv(out)}
    assert [(name, sid, email) for name, sid, email, _ in rows[1:]] == [
        ("Alice Ng", "1001", "alice@uni.edu"), ('Bob "Bobby" Tables, Jr.', "1002", "bob@uni.edu"), ("Carol Diaz", "1003", "carol@uni.edu"),
        ("Dan Ek", "1004", "dan@uni.edu"), ("Erin Fox", "1005", "erin@uni.edu")]
    assert all(score == totals[name, email] for name, _, email, score in rows[1:])
    assert "left out 2:" in proc.stdout and "submission_105: Gus Hale has neither SID nor email to match on Gradescope" in proc.stdout
    assert "submission_106: not graded" in proc.stdout


def test_the_summary_counts_what_the_results_say(first_run):
    _, _, _, out, _ = first_run
    results = [json.loads((out.parent / "results" / f"{name}.json").read_text()) for name in GRADED]
    # Pass rates count the submissions whose module was graded: not the empty one (its module is missing).
    graded = [name for name in GRADED
              if json.loads((out.parent / "records" / f"{name}.json").read_text())["problems"][0]["kind"] == "ok"]
    assert graded == [name for name in GRADED if name != "submission_104"]
    tests = [t for name, r in zip(GRADED, results) if name in graded for t in r["tests"] if t["max_score"] > 0]
    passed = {t["name"].split(": ", 1)[1]: (sum(u["status"] == "passed" for u in tests if u["name"] == t["name"]),
                                           sum(u["name"] == t["name"] for u in tests)) for t in tests}
    hints = {v.name: f"Hint: {v.hint}" for v in solutions.mistakes(MODULE)}
    matched = {name: sum(any(hint in t["output"] for t in r["tests"]) for r in results) for name, hint in hints.items()}
    matched = {name: n for name, n in matched.items() if n}
    assert matched == {"scale_ignored": 2, "causal_mask_keeps_future": 1}

    text = (out.parent / "summary.txt").read_text()
    shown_rates = {}
    for line in summary_section(text, "Tests passed"):
        share, count, test, _ = line.split(maxsplit=3)
        shown_rates[test] = tuple(int(x) for x in count.split("/"))
    assert shown_rates == passed
    shown_mistakes = {line.split()[1].rstrip(":"): int(line.split()[0]) for line in summary_section(text, "Known mistakes")
                      if not line.split()[0] == "in:"}  # the line below each mistake names its submissions
    assert shown_mistakes == matched
    page = (out.parent / "summary.html").read_text()
    assert all(f"<code>{name}</code>" in page for name in matched) and "Alice" not in page.split("Slowest to grade")[0]


def test_a_rerun_resumes_and_a_regrade_lists_exactly_the_students_a_changed_test_moved(first_run, tmp_path):
    tmp, root, export, out, _ = first_run
    again = grade_all(root, export, "--out", out)
    assert again.returncode == 0 and "graded 0 now, 5 from earlier runs" in again.stdout, again.stdout + again.stderr

    records = {name: json.loads((out.parent / "records" / f"{name}.json").read_text()) for name in GRADED}
    moved = {name for name, record in records.items()
             if any(t["name"] == CHANGED_TEST and t["passed"] for p in record["problems"] for t in p["tests"])}
    assert moved and moved != set(GRADED)

    changed_root = one_problem_root(tmp_path, MODULE, name="changed")
    was, now = change_points(changed_root, CHANGED_TEST, 2)
    regraded = tmp_path / "regrade" / "grades.csv"
    proc = grade_all(changed_root, export, "--out", regraded, "--against", out.parent)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    diff = (regraded.parent / "regrade.txt").read_text()
    assert diff.strip() in proc.stdout
    lines = diff.splitlines()
    assert lines[0] == f"Regrade against {out.parent}: {len(moved)} of 5 submissions changed score by +2 each; the maximum moved from 15 to 17."
    listed = dict(re.findall(r"(submission_\d+)\]?: \S+ -> \S+ \(([+-][\d.]+)\)$", diff, re.MULTILINE))
    assert set(listed) == moved and set(listed.values()) == {"+2"}
    assert diff.count(f"    {MODULE}: {CHANGED_TEST}: {was:g}/{was:g} -> {now:g}/{now:g}") == len(moved)
    students = {"submission_101": ["Alice Ng"], "submission_102": ["Bob"], "submission_103": ["Carol Diaz", "Dan Ek"], "submission_104": ["Erin Fox"]}
    for name, people in students.items():
        assert all((person in diff) == (name in moved) for person in people), name
    same = re.search(r"^Same total, but some test.s points or maximum changed: (.*)$", diff, re.MULTILINE)
    assert same is None or not set(same.group(1).split(", ")) & moved

    # Into the same folder, without --force: the records carry the old tests' fingerprint, so all are graded again.
    rerun = tmp_path / "same"
    shutil.copytree(out.parent, rerun)
    proc = grade_all(changed_root, export, "--out", rerun / "grades.csv")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "5 earlier records were graded with other tests, points, recorded values or harness code: graded again what " \
           f"changed: {MODULE} (5)" in proc.stderr and "graded 5 now, 0 from earlier runs" in proc.stdout
    assert without_seconds(rerun / "grades.csv") == without_seconds(regraded)
    assert (rerun / "gradescope_upload.csv").read_text() == (regraded.parent / "gradescope_upload.csv").read_text()


def without_seconds(path):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in read_csv(path)]


def test_a_points_edit_in_one_file_stops_before_the_first_submission(tmp_path):
    root = one_problem_root(tmp_path, MODULE)
    hidden = root / "assignments" / MODULE / "tests" / "hidden.py"
    # points live only at the tests, written out so the manifests add them up without running the file: an expression
    hidden.write_text(hidden.read_text().replace("@test_case(points=", "@test_case(points=2 + ", 1))
    export = write_export(tmp_path / "export.zip")
    proc = grade_all(root, export, "--out", tmp_path / "o" / "grades.csv")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "the assignment cannot be graded, so nothing was graded or written: ManifestError:" in proc.stderr
    assert re.search(r"hidden\.py: line \d+: test \w+ should have a positive number written out as its points=.*got 2 \+ ",
                     proc.stderr) and "Traceback" not in proc.stderr
    assert not (tmp_path / "o").exists()


def test_malformed_metadata_stops_before_grading(tmp_path):
    root = one_problem_root(tmp_path, MODULE)
    export = tmp_path / "export.zip"
    export.write_bytes(zip_bytes({"submission_metadata.yml": METADATA + "submission_107:\n  :submitters: Gus Hale\n",
                                  f"submission_101/{MODULE}.py": "", f"submission_107/{MODULE}.py": ""}))
    proc = grade_all(root, export, "--out", tmp_path / "o" / "grades.csv")
    assert proc.returncode == 2 and "the export's metadata is malformed" in proc.stderr, proc.stdout + proc.stderr
    assert "submission_metadata.yml: entry submission_107: ':submitters:' should be a list" in proc.stderr
    assert not (tmp_path / "o").exists()
    export.write_bytes(export.read_bytes()[:-30])
    proc = grade_all(root, export, "--out", tmp_path / "o" / "grades.csv")
    assert proc.returncode == 2 and "export.zip is a damaged zip" in proc.stderr and not (tmp_path / "o").exists()


def descendants(pid):
    """Every process below ``pid`` now, as (pid, start time) so that a reused pid is not mistaken for one of them."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = open(f"/proc/{entry}/stat").read()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append((int(entry), fields[19]))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child[0])
    return found


def processes_of_run(pid):
    """Every process of the grade-all run ``pid``: its descendants, and the workers a zygote forked for it with their
    tests' processes (no descendants of the run: without bubblewrap their folder is one of the run's boxes, under it
    their mount namespace is a holder's, which is a descendant)."""
    from autograder.sandbox import runtime

    found = descendants(pid)
    namespaces = {_link(f"/proc/{p}/ns/mnt") for p, _ in found} - {_link("/proc/self/ns/mnt"), None}
    boxes = tuple(f"/{runtime.BOX_PREFIX}{p}-" for p in [pid, *(p for p, _ in found)])  # made by the run or its jobs
    in_boxes = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) not in {p for p, _ in found}:
            folder = _link(f"/proc/{entry}/cwd") or ""
            if any(box in folder for box in boxes) or _link(f"/proc/{entry}/ns/mnt") in namespaces:
                in_boxes.append(int(entry))
    # A worker's first process is not dumpable: a grader that is not root cannot read where it runs, but its tests'
    # processes (dumpable again) name it as their parent. Root reads every folder, and the zygote is never added.
    if os.geteuid() != 0:
        parents = {int(fields[1]) for p in in_boxes if (fields := _stat_fields(p))}
        in_boxes += [p for p in parents - set(in_boxes) - {p for p, _ in found} if _link(f"/proc/{p}/cwd") is None]
    return found + [(p, fields[19]) for p in in_boxes if (fields := _stat_fields(p))]


def _stat_fields(pid):
    """The fields of /proc/PID/stat after the command's name (state first), or None once it is gone."""
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _link(path):
    try:
        return os.readlink(path)
    except OSError:
        return None


def alive(process):
    try:
        stat = open(f"/proc/{process[0]}/stat").read()
    except OSError:
        return False
    fields = stat.rsplit(")", 1)[1].split()
    return fields[19] == process[1] and fields[0] != "Z"


def test_kill_9_of_grade_all_leaves_no_process_running(tmp_path, killed_run_tmp):
    root = one_problem_root(tmp_path, MODULE)
    subs = tmp_path / "subs"
    for i in range(8):
        (subs / f"s{i}").mkdir(parents=True)
        (subs / f"s{i}" / f"{MODULE}.py").write_text(solutions.reference_path(MODULE).read_text())
    env = dict(os.environ, AUTOGRADER_ROOT=str(root), TMPDIR=str(killed_run_tmp))
    parent = subprocess.Popen([sys.executable, "-m", "autograder", "grade-all", str(subs), "--out", str(tmp_path / "o" / "grades.csv"),
                               "--jobs", "2"], cwd=paths.PACKAGE_DIR.parent, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 300
        # Two jobs, each with its worker started (a fresh process below the run, or forked by the zygote).
        while len(processes_of_run(parent.pid)) < 4 and time.monotonic() < deadline and parent.poll() is None:
            time.sleep(0.2)
        time.sleep(1.0)
        running = processes_of_run(parent.pid)
        assert parent.poll() is None and len(running) >= 4, f"the run did not get going: {running}"
    finally:
        parent.kill()
        parent.wait()
    deadline = time.monotonic() + 60
    while any(alive(p) for p in running) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = [p for p in running if alive(p)]
    assert left == [], f"still running after kill -9 of grade-all: {[open(f'/proc/{p[0]}/cmdline').read() for p in left]}"
    # Its jobs' sandbox folders (students' modules) stay behind; the next run removes them, and only them.
    from autograder.sandbox import runtime

    boxes = {b for pid, _ in running for b in killed_run_tmp.glob(f"{runtime.BOX_PREFIX}{pid}-*")}
    assert boxes, "the killed run's jobs made no sandbox folder"
    assert boxes <= set(runtime.remove_dead_boxes()) and not any(b.exists() for b in boxes)


def test_bad_arguments_are_explained_before_any_grading(tmp_path):
    root = one_problem_root(tmp_path, MODULE)
    (tmp_path / "empty_run").mkdir()
    proc = grade_all(root, tmp_path, "--out", tmp_path / "o" / "grades.csv", "--against", tmp_path / "empty_run")
    assert proc.returncode == 2 and "no score records in" in proc.stderr and "earlier grade-all run" in proc.stderr
    assert not (tmp_path / "o").exists()
    proc = grade_all(root, tmp_path / "nowhere", "--out", tmp_path / "o" / "grades.csv")
    assert proc.returncode == 2 and "nowhere does not exist" in proc.stderr
    (tmp_path / "subs.zip").write_bytes(zip_bytes({"alice/qkv_arithmetic.py": ""}))
    proc = grade_all(root, tmp_path / "subs.zip", "--out", tmp_path / "o" / "grades.csv")
    assert proc.returncode == 2 and "subs.zip holds no submission_metadata.yml" in proc.stderr
    (tmp_path / "o" / "records").mkdir(parents=True)
    (tmp_path / "o" / "records" / "x.json").write_text("{}")
    proc = grade_all(root, tmp_path, "--out", tmp_path / "o" / "grades.csv", "--against", tmp_path / "o")
    assert proc.returncode == 2 and "is where this run writes" in proc.stderr
    (tmp_path / "a_file").write_text("")
    proc = grade_all(root, tmp_path, "--out", tmp_path / "a_file" / "run" / "grades.csv")
    assert proc.returncode == 2 and "a_file is a file, not a folder" in proc.stderr and "Traceback" not in proc.stderr
    proc = grade_all(root, tmp_path, "--out", tmp_path / "o")
    assert proc.returncode == 2 and f"pass the file to write, e.g. --out {tmp_path / 'o' / 'grades.csv'}" in proc.stderr
    proc = grade_all(root, tmp_path, "--out", tmp_path / "o2" / "grades.csv", "--jobs", "0")
    assert proc.returncode == 2 and "--jobs: 0 is too few: at least 1" in proc.stderr and not (tmp_path / "o2").exists()


def test_printed_names_are_escaped_and_a_folder_not_graded_is_listed(tmp_path, monkeypatch, capsys):
    import argparse

    from autograder.commands import grade_all as command
    from autograder.staff import grade_all
    from tests.staff.test_grade_all import GOOD, FakeSession, fake_grade

    monkeypatch.setattr(grade_all.grader, "grade", fake_grade)
    monkeypatch.setattr(grade_all.grader, "reusable_session", lambda assignment: FakeSession())
    root = one_problem_root(tmp_path, MODULE)
    real_load = grade_all.manifest.load
    monkeypatch.setattr(grade_all.manifest, "load", lambda path=None: real_load(path or root / "assignments" / "assignment.yaml"))
    export = tmp_path / "export.zip"
    export.write_bytes(zip_bytes({
        "submission_metadata.yml": ('submission_1:\n  :submitters:\n  - :name: "Eve\\e]0;owned\\a\\nNext line"\n    :sid: "=1+1"\n'
                                    '    :email: eve@x\nsubmission_2:\n  :submitters:\n  - :name: "Mal\\e[2J\\tory"\n'
                                    '..\\..\\evil:\n  :submitters:\n  - :name: "Evil"\n    :sid: "666"\n'),
        f"submission_1/{MODULE}.py": GOOD, f"submission_2/{MODULE}.py": GOOD, f"..\\..\\evil/{MODULE}.py": GOOD}))
    out = tmp_path / "o" / "grades.csv"
    args = argparse.Namespace(dir=str(export), out=str(out), jobs=1, force=False, against=None, shard=None, merge=None)
    assert command.run(args) == 0
    printed = capsys.readouterr()
    assert "\x1b" not in printed.out + printed.err and "\x07" not in printed.out + printed.err
    assert "not graded: ..\\..\\evil: its name holds a path separator (/ or \\); rename it" in printed.err
    assert "submission_2: Mal\\x1b[2J\\tory has neither SID nor email to match on Gradescope" in printed.out
    assert "..\\..\\evil: not graded (not graded: its name holds a path separator" in printed.out  # left out of the upload
    rows = list(csv.reader(io.StringIO((out.parent / "gradescope_upload.csv").read_text(), newline="")))
    assert rows[1] == ["Eve\x1b]0;owned\x07\nNext line", "'=1+1", "eve@x", "15"]  # the value survives, the formula does not
    assert not list(tmp_path.glob("**/evil*")) and sorted(p.name for p in (out.parent / "records").iterdir()) == [
        "submission_1.json", "submission_2.json"]


def test_shard_and_merge_through_the_command(tmp_path, monkeypatch, capsys):
    import argparse

    from autograder.commands import grade_all as command
    from autograder.staff import grade_all
    from tests.staff.test_grade_all import FakeSession, fake_export, fake_grade

    monkeypatch.setattr(grade_all.grader, "grade", fake_grade)
    monkeypatch.setattr(grade_all.grader, "reusable_session", lambda assignment: FakeSession())
    root = one_problem_root(tmp_path, MODULE)
    real_load = grade_all.manifest.load
    monkeypatch.setattr(grade_all.manifest, "load", lambda path=None: real_load(path or root / "assignments" / "assignment.yaml"))
    export = fake_export(tmp_path / "export.zip")

    def run(out, **options):
        args = argparse.Namespace(dir=str(export), out=str(out), jobs=1, force=False, against=None, shard=None, merge=None)
        vars(args).update(options)
        return command.run(args)

    assert run(tmp_path / "one" / "grades.csv") == 0
    assert run(tmp_path / "s1" / "grades.csv", shard="1/2") == 0 and run(tmp_path / "s2" / "grades.csv", shard="2/2") == 0
    assert "graded shard 2/2: 4 now" in capsys.readouterr().out  # 5 names, one listed without a folder
    assert run(tmp_path / "m" / "grades.csv", merge=[str(tmp_path / "s1"), str(tmp_path / "s2")]) == 0
    assert "merged 9 submissions from 2 shards" in capsys.readouterr().out
    for name in ("grades.csv", "gradescope_upload.csv", "summary.txt"):
        assert (tmp_path / "m" / name).read_text() == (tmp_path / "one" / name).read_text(), name
    assert run(tmp_path / "x" / "grades.csv", merge=[str(tmp_path / "s1")]) == 2
    assert "shards 2/2 are missing" in capsys.readouterr().err
    assert run(tmp_path / "x" / "grades.csv", shard="3/2") == 2 and "K must be between 1 and N" in capsys.readouterr().err


def test_a_lone_surrogate_in_a_status_ends_neither_the_job_nor_its_csv(tmp_path):
    # ValueError("\udc80") at import put a lone surrogate into the status: grades.csv (strict UTF-8) could not be written
    # and the job died after the first submission's record, on every resume too.
    root = one_problem_root(tmp_path, MODULE)
    folder = tmp_path / "submissions"
    for name, source in (("submission_1", 'raise ValueError("\\udc80")\n'),
                         ("submission_2", solutions.reference_path(MODULE).read_text())):
        (folder / name).mkdir(parents=True)
        (folder / name / f"{MODULE}.py").write_text(source)
    out = tmp_path / "o" / "grades.csv"
    proc = grade_all(root, folder, "--out", out, "--jobs", "1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = {row["submission"]: row for row in read_csv(out)}
    assert set(rows) == {"submission_1", "submission_2"}, rows
    assert "\\udc80" in rows["submission_1"]["status"] and rows["submission_2"]["status"] == "ok", rows


@pytest.mark.parametrize("shared, jobs, warned", [(True, 2, True), (True, 1, False), (False, 2, False)])
def test_parallel_jobs_sharing_the_users_process_count_are_warned_of(tmp_path, monkeypatch, capsys, shared, jobs, warned):
    import argparse

    from autograder.commands import grade_all as command
    from autograder.sandbox import policy
    from autograder.staff import grade_all
    from tests.staff.test_grade_all import FakeSession, fake_export, fake_grade

    monkeypatch.setattr(grade_all.grader, "grade", fake_grade)
    monkeypatch.setattr(grade_all.grader, "reusable_session", lambda assignment: FakeSession())
    monkeypatch.setattr(policy, "detect", lambda: policy.Protections(bwrap=None, is_root=False, landlock=7, seccomp=True,
                                                                     userns=not shared))
    root = one_problem_root(tmp_path, MODULE)
    real_load = grade_all.manifest.load
    monkeypatch.setattr(grade_all.manifest, "load", lambda path=None: real_load(path or root / "assignments" / "assignment.yaml"))
    args = argparse.Namespace(dir=str(fake_export(tmp_path / "export.zip")), out=str(tmp_path / "o" / "grades.csv"),
                              jobs=jobs, force=False, against=None, shard=None, merge=None)
    assert command.run(args) == 0
    err = capsys.readouterr().err
    assert ("gives your user no user namespace" in err and "--jobs 1 avoids it" in err) is warned
