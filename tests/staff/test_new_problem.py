"""`new-problem`: a new problem is one folder and one command.

The long test is the authors' path end to end: in a copy of the project, `new-problem` scaffolds a seventh problem,
the author writes only inside its folder and `reference/` (a multi-query attention: reference, two tests, one mistake,
one fair variant), and `templates`, `validate`, `build`, `handout`, `grade` and `check` (in the handout) all work.
"""

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import zipfile

from autograder.gradescope import otter_run
from autograder.grading import time_rules
from autograder.model import manifest, paths
from autograder.staff import new_problem, validate

COPIED = ("autograder", "assignments", "reference", "student_template", "docs", "requirements.txt", "requirements-dev.txt",
          "requirements-student.txt")
NEW = "multi_query_attention"

REFERENCE = '''\
"""Multi-query attention: every head has its own queries, all heads share one set of keys and values."""

import torch


def multi_query_attention(Q, K, V):
    """Q (..., H, T_q, d), K (..., T_k, d), V (..., T_k, d_v) -> (..., H, T_q, d_v); scores scaled by 1/sqrt(d)."""
    # BEGIN SOLUTION
    scores = Q @ K.unsqueeze(-3).transpose(-2, -1) / Q.shape[-1] ** 0.5
    return torch.softmax(scores, dim=-1) @ V.unsqueeze(-3)
    # END SOLUTION
'''

PUBLIC = '''\
from autograder.testkit import Call, randn, test_case


@test_case(points=1)
def test_two_heads(multi_query_attention):
    Call(multi_query_attention.multi_query_attention, randn(2, 3, 4, seed=1), randn(3, 4, seed=2), randn(3, 5, seed=3)).matches_reference()
'''

HIDDEN = '''\
from autograder.testkit import Call, randn, test_case


@test_case(points=2, hidden=True)
def test_batched_heads(multi_query_attention):
    Call(multi_query_attention.multi_query_attention, randn(2, 4, 3, 8, seed=4), randn(2, 5, 8, seed=5),
         randn(2, 5, 2, seed=6)).matches_reference()
'''

MISTAKE = '''\
HINT = "the scores are not scaled by 1/sqrt(d)."


def multi_query_attention(Q, K, V):
    return torch.softmax(Q @ K.unsqueeze(-3).transpose(-2, -1), dim=-1) @ V.unsqueeze(-3)
'''

FAIR = '''\
def multi_query_attention(Q, K, V):
    heads = [torch.softmax(Q[..., h, :, :] @ K.transpose(-2, -1) / Q.shape[-1] ** 0.5, dim=-1) @ V for h in range(Q.shape[-3])]
    return torch.stack(heads, dim=-3)
'''


def copy_project(dest):
    for name in COPIED:
        src = paths.ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy(src, dest / name)
    return dest


def autograder(root, *args, timeout=900):
    env = dict(os.environ)
    env.pop("AUTOGRADER_ROOT", None)  # the copy's own package finds its own project
    proc = subprocess.run([sys.executable, "-m", "autograder", *args], cwd=root, env=env, capture_output=True, text=True,
                          timeout=timeout)
    return proc


def test_a_bad_or_taken_name_is_refused_and_nothing_is_written(tmp_path):
    root = copy_project(tmp_path / "project")
    before = (root / "assignments" / "assignment.yaml").read_text()
    for name, words in (("Multi-Query", "lowercase ASCII letters"), ("qkv_arithmetic", "exists already"),
                        ("class", "Python keyword"), ("torch", "imported already where the work is graded"),
                        ("yaml", "installed here"), ("café", "lowercase ASCII letters")):
        proc = autograder(root, "new-problem", name)
        assert proc.returncode == 2 and words in proc.stderr, proc.stdout + proc.stderr
    assert (root / "assignments" / "assignment.yaml").read_text() == before


def test_the_scaffold_validates_as_it_stands_in_its_files(tmp_path):
    root = copy_project(tmp_path / "project")
    proc = autograder(root, "new-problem", NEW)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assignment = manifest.load(root / "assignments" / "assignment.yaml")
    assert assignment.modules[-1] == NEW and len(assignment.modules) == len(manifest.load().modules) + 1
    problem = assignment.problem(NEW)
    assert problem.points == 3 and problem.public_tests and problem.hidden_tests
    assert time_rules.bound_problem(assignment) is None
    folder = root / "assignments" / NEW
    assert list((folder / "mistakes").glob("*.py")) and list((folder / "fair").glob("*.py"))
    reference = (root / "reference" / f"{NEW}.py").read_text()
    assert "# BEGIN SOLUTION" in reference and "# END SOLUTION" in reference
    # The stub's docstring is written for the students who read it, never the staff's word on the reference.
    stub = (root / "student_template" / f"{NEW}.py").read_text()
    docstring = stub.split('"""')[1]
    assert docstring.startswith(f"Problem {len(assignment.modules)}: Multi query attention.") and "python -m autograder check" in docstring
    assert "reference" not in docstring.lower() and "solution" not in docstring.lower()
    # A seventh problem of today's size fits the time bound at the assignment's default call limit: none is written.
    assert problem.limits.call_seconds == 5 and "call_seconds" not in (folder / "problem.yaml").read_text()
    assert "note: its call limit" not in proc.stdout, proc.stdout
    assert f"## {NEW}" in (root / "docs" / "spec_coverage.md").read_text()
    # The assignment's comments and order survive the listing.
    text = (root / "assignments" / "assignment.yaml").read_text()
    assert text.index("- causal_linear_attention") < text.index(f"- {NEW}") < text.index("problem_defaults:")


def test_a_problem_the_time_rules_leave_less_than_the_default_gets_what_is_left_and_what_to_change(assignment):
    # Six problems of today's size and one more of 3 s leave an eighth less than the default 5 s.
    extra = dataclasses.replace(assignment.problems[0], module="seventh", limits=manifest.Limits(call_seconds=3))
    fuller = dataclasses.replace(assignment, problems=(*assignment.problems, extra))
    limit, note = new_problem._call_limit(fuller)
    assert limit == time_rules.room_for_a_problem(fuller) and 0 < limit < 5
    assert note.startswith(f"its call limit is {limit:g} s, the most the time rules leave for one more problem"), note
    assert "raise gradescope.timeout_minutes in assignment.yaml to 11" in note and "to give it 5 s" in note, note


def test_a_seventh_problem_written_in_its_folder_works_with_every_command(tmp_path):
    root = copy_project(tmp_path / "project")
    proc = autograder(root, "new-problem", NEW)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    folder = root / "assignments" / NEW
    for example in [*folder.glob("mistakes/*.py"), *folder.glob("fair/*.py")]:
        example.unlink()
    (folder / "README.md").write_text("# Multi-query attention\n\n`multi_query_attention(Q, K, V)`: every head's queries "
                                      "attend over one shared set of keys and values.\n")
    (folder / "tests" / "public.py").write_text(PUBLIC)
    (folder / "tests" / "hidden.py").write_text(HIDDEN)
    (folder / "mistakes" / "unscaled_scores.py").write_text(MISTAKE)
    (folder / "fair" / "loop_over_heads.py").write_text(FAIR)
    (root / "reference" / f"{NEW}.py").write_text(REFERENCE)

    proc = autograder(root, "templates")
    assert proc.returncode == 0, proc.stderr
    proc = autograder(root, "validate", "-p", NEW)
    assert proc.returncode == 0 and "all as expected" in proc.stdout, proc.stdout + proc.stderr
    for row in ("worst case + grader", "mistake:unscaled_scores", "fair:loop_over_heads", "only-there:unscaled_scores"):
        assert row in proc.stdout, row

    out = tmp_path / "autograder.zip"
    proc = autograder(root, "build", "--out", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    names = set(zipfile.ZipFile(out).namelist())
    assert {f"{otter_run.HARNESS}/assignments/{NEW}/tests/public.py", f"{otter_run.HARNESS}/assignments/{NEW}/tests/hidden.py"} <= names
    assert json.loads(zipfile.ZipFile(out).read("otter_config.json"))["points_possible"] == 103

    only_new = tmp_path / "submission"
    only_new.mkdir()
    shutil.copy(root / "reference" / f"{NEW}.py", only_new)
    results = tmp_path / "results.json"
    proc = autograder(root, "grade", str(only_new), "--out", str(results))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    graded = json.loads(results.read_text())
    assert graded["score"] == 3
    assert {t["name"].split(":")[0] for t in graded["tests"]} >= {NEW, "qkv_arithmetic", "causal_linear_attention"}
    assert sum(t["max_score"] for t in graded["tests"]) == 103

    handout = tmp_path / "handout.zip"
    proc = autograder(root, "handout", "--out", str(handout))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with zipfile.ZipFile(handout) as zf:
        zf.extractall(tmp_path / "handout")
    student = next((tmp_path / "handout").iterdir())
    readme = (student / "README.md").read_text()
    assert "7 problems" in readme and f"`{NEW}.py`" in readme
    assert not (student / "assignments" / NEW / "tests" / "hidden.py").exists()
    shutil.copy(root / "reference" / f"{NEW}.py", student / "student_template")
    proc = autograder(student, "check", "-p", NEW)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 of this problem's 3 points" in proc.stdout, proc.stdout


def test_a_seventh_problem_past_the_time_bound_stops_build_saying_what_to_change(tmp_path):
    root = copy_project(tmp_path / "project")
    assert autograder(root, "new-problem", NEW).returncode == 0
    problem_yaml = root / "assignments" / NEW / "problem.yaml"
    problem_yaml.write_text("title: Multi-query attention\nlimits:\n  call_seconds: 12\n")  # today's largest: past the bound
    proc = autograder(root, "build", "--out", str(tmp_path / "a.zip"))
    assert proc.returncode == 2 and not (tmp_path / "a.zip").exists()
    assert "passes the deadline" in proc.stderr and "call limits" in proc.stderr and "timeout_minutes" in proc.stderr
    proc = autograder(root, "config")
    assert proc.returncode == 0 and "passes the deadline" in proc.stdout


def test_validate_s_time_table_misses_and_says_what_to_change_when_a_problem_breaks_the_bound(assignment):
    assert validate.time_table(assignment).misses == 0
    extra = dataclasses.replace(assignment.problems[0], module=NEW, limits=manifest.Limits(call_seconds=12))
    table = validate.time_table(dataclasses.replace(assignment, problems=(*assignment.problems, extra)))
    assert table.misses == 1 and "To fit" in table.note and f"{NEW} 12 s" in table.note
