"""The self-check: as root it switches no uid, makes nothing private and builds no Python mirror; its verdict in words."""

import os
import re
import threading
from types import SimpleNamespace

import pytest

from autograder.grading import check as grading_check
from autograder.model import paths, scores
from autograder.sandbox import identity, runtime


@pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0, reason="what a self-check skips is what a root grader does")
def test_a_self_check_as_root_leaves_nothing_behind(monkeypatch, assignment):
    def forbidden(*args, **kwargs):
        raise AssertionError("a self-check must not lease a uid, chmod a folder or mirror Python")

    monkeypatch.delenv("AUTOGRADER_PORTABLE", raising=False)
    for owner, name in ((identity, "lease"), (runtime, "make_private"), (runtime, "_mirror"), (runtime, "verify")):
        monkeypatch.setattr(owner, name, forbidden)
    mode = os.stat(paths.ROOT).st_mode
    report = grading_check.run(paths.REFERENCE, assignment, ["receptive_field"])
    assert report.all_passed, [t.message for p in report.problems for t in p.tests if not t.passed]
    assert os.stat(paths.ROOT).st_mode == mode


def test_the_verdict_says_what_passing_means(assignment):
    report = grading_check.run(paths.TEMPLATES, assignment, ["receptive_field"])
    text = grading_check.verdict(report, assignment)
    tests = sum(len(p.tests) for p in report.problems)
    problem = assignment.problem("receptive_field")
    assert text.startswith(f"{tests} of {tests} public tests fail")
    assert f"carry {report.max_points:g} of this problem's {problem.points:g} points" in text and "after you submit" in text


def test_tests_that_could_not_be_judged_are_counted_apart_from_the_failures(assignment):
    report = grading_check.run(paths.REFERENCE, assignment, ["receptive_field"])
    unjudged = report.problems[0].tests[0]
    unjudged.passed, unjudged.failure = False, scores.NO_EXPECTED
    text = grading_check.verdict(report, assignment)
    assert text.startswith(f"1 of {len(report.problems[0].tests)} public tests could not be judged, a fault of the "
                           "grader's files and not of your code (see above), and all the others pass."), text
    report.problems[0].tests[1].passed = False
    assert "(see above); 1 of the others fail." in grading_check.verdict(report, assignment)


STUDENT_MISTAKES = {
    "complexity": "import yaml  # installed where the harness runs, but not one of the packages student code may import\n",
    "receptive_field": (paths.REFERENCE / "receptive_field.py").read_text() + '''

def receptive_field_size(n_layers, n_heads, seq_len=None):
    return _count_forever()


def _count_forever():
    n = 0
    while True:
        n += 1
        print("counting", n)


_reference_receptive_field = receptive_field


def receptive_field(attended, position):
    found = _reference_receptive_field(attended, position)
    if len(attended):
        attended[0][0] = attended[0][0]  # a no-op write leaves the values: only a change counts
        if hasattr(attended[0], "add_"):
            attended[0].add_(0)
            attended[0][0] += 1
    return found
''',
}


@pytest.mark.parametrize("portable", ["", "1"], ids=["sandbox", "portable"])
def test_what_grading_refuses_the_self_check_refuses_with_the_same_words(tmp_path, monkeypatch, assignment, portable):
    monkeypatch.setenv("AUTOGRADER_PORTABLE", portable)
    for module, source in STUDENT_MISTAKES.items():
        (tmp_path / f"{module}.py").write_text(source)
    report = grading_check.run(tmp_path, assignment, list(STUDENT_MISTAKES))
    problems = {p.module: p for p in report.problems}
    assert problems["complexity"].status == ("complexity.py could not be imported: ModuleNotFoundError: `yaml` is not available "
                                             "where your work is graded; use numpy or torch")
    tests = {t.name: t.message for t in problems["receptive_field"].tests}
    stopped = tests["size_formula"]
    assert "did not finish within the time limit" in stopped and re.search(r"It was at receptive_field\.py, line \d+, in _count_forever\.", stopped)
    assert "of output: printing that much is slow by itself" in stopped
    assert "autograder-stack" not in problems["receptive_field"].output and "counting" in problems["receptive_field"].output
    changed = tests["two_heads_as_tensors_and_zero_layers"]
    assert "your function changed its argument attended in place" in changed, changed
    assert tests["worked_example"] == ""  # lists of ints cannot be modified through a tensor's methods; the no-op write is no change


def _as_read(report):
    """Everything a student reads in a report (not the seconds each test took, nor which call was slow this time)."""
    return [n for n in report.notes if " was slow: " not in n], [(p.module, p.title, p.status, p.kind, p.output, [
        (t.name, t.points, t.passed, t.message, t.details, t.mistakes, t.failure) for t in p.tests]) for p in report.problems]


@pytest.mark.parametrize("portable", ["", "1"], ids=["sandbox", "portable"])
def test_problems_checked_in_parallel_read_as_one_after_another(tmp_path, monkeypatch, assignment, portable):
    monkeypatch.setenv("AUTOGRADER_PORTABLE", portable)
    for module in assignment.modules:
        (tmp_path / f"{module}.py").write_text((paths.REFERENCE / f"{module}.py").read_text())
    (tmp_path / "complexity.py").write_text(STUDENT_MISTAKES["complexity"])
    (tmp_path / "qkv_arithmetic.py").write_text((paths.REFERENCE / "qkv_arithmetic.py").read_text()
                                                + "\n\ndef attention_scores(Q, K, scale=1.0):\n    print('scores of', tuple(Q.shape))\n"
                                                  "    return Q @ K.mT\n")
    (tmp_path / "notes.txt").write_text("ignored, and said so once")
    threads = set()
    grade = grading_check.grader.grade

    def watched(*args, **kwargs):
        threads.add(threading.get_ident())
        return grade(*args, **kwargs)

    monkeypatch.setattr(grading_check.grader, "grade", watched)
    one = grading_check.run(tmp_path, assignment, workers=1)
    threads.clear()
    two = grading_check.run(tmp_path, assignment, workers=2)
    assert len(threads) == 2  # two workers graded
    assert _as_read(two) == _as_read(one)
    assert [p.module for p in two.problems] == assignment.modules and two.notes == ["ignored (never read or run): notes.txt"]
    assert not all(t.passed for t in two.problems[0].tests) and "scores of" in two.problems[0].output
    assert two.problems[2].kind == "import"


def test_a_check_uses_one_worker_per_idle_core_and_no_more_than_problems(monkeypatch):
    monkeypatch.setattr(grading_check.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    monkeypatch.setattr(grading_check.os, "getloadavg", lambda: (0.2, 0.5, 0.5), raising=False)
    assert [grading_check.parallel_workers(n) for n in (1, 3, 6)] == [1, 3, 4]
    monkeypatch.setattr(grading_check.os, "getloadavg", lambda: (2.6, 1.0, 1.0), raising=False)
    assert grading_check.parallel_workers(6) == 1
    monkeypatch.setattr(grading_check.os, "getloadavg", lambda: (9.0, 9.0, 9.0), raising=False)
    assert grading_check.parallel_workers(6) == 1


def test_a_portable_check_keeps_a_core_for_the_grading_process(monkeypatch, tmp_path, assignment):
    monkeypatch.setattr(grading_check.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(grading_check.os, "getloadavg", lambda: (0.2, 0.5, 0.5), raising=False)
    assert grading_check.parallel_workers(6) == 2 and grading_check.parallel_workers(6, reserved=1) == 1
    asked = []
    monkeypatch.setattr(grading_check, "parallel_workers", lambda problems, reserved=0: asked.append(reserved) or 1)
    monkeypatch.setattr(grading_check, "portable_reason", lambda: "AUTOGRADER_PORTABLE=1")
    graded = SimpleNamespace(notes=[])
    monkeypatch.setattr(grading_check.grader, "grade", lambda *args, **kwargs: graded)
    assert grading_check.run(tmp_path, assignment) is graded and asked == [1]


def test_a_slow_call_is_named_with_its_share_of_the_limit(tmp_path, assignment):
    (tmp_path / "receptive_field.py").write_text((paths.REFERENCE / "receptive_field.py").read_text() + """
import time

_reference_size, _slept = receptive_field_size, []


def receptive_field_size(n_layers, n_heads, seq_len=None):
    if not _slept:
        _slept.append(time.sleep(2.0))
    return _reference_size(n_layers, n_heads, seq_len)
""")
    report = grading_check.run(tmp_path, assignment, ["receptive_field"])
    assert report.all_passed
    slow = [n for n in report.notes if n.startswith("receptive_field.receptive_field_size was slow: ")]
    limit = assignment.problem("receptive_field").limits.call_seconds
    assert len(slow) == 1 and f" s of the {limit:g} s a call may take" in slow[0] and ", the slowest 2." in slow[0], report.notes
    assert not any("receptive_field.receptive_field was slow" in n for n in report.notes)


def test_slow_calls_count_what_ran_not_what_waited_for_a_cpu_nor_what_was_stopped():
    from autograder.sandbox.exchange import Exchange

    calls = [Exchange("m", "call", "f", 4.0, 10.0, False, waited=2.0), Exchange("m", "call", "f", 3.1, 10.0, False),
             Exchange("m", "call", "g", 9.0, 10.0, False, waited=8.0), Exchange("m", "call", "h", 10.0, 10.0, True),
             Exchange("m", "import", "", 5.0, 10.0, False)]
    calls += [Exchange("m", "call", "k", 1.1, 10.0, False) for _ in range(3)]  # slow in all, no call slow alone
    assert grading_check.slow_calls(calls) == [
        "m.f was slow: 2 call(s) ran 5.1 s in all, the slowest 3.1 s of the 10 s a call may take. Hidden tests may call it "
        "on larger inputs, where a slow form runs out of time.",
        "m.k was slow: 3 call(s) ran 3.3 s in all, the slowest 1.1 s of the 10 s a call may take. Hidden tests may call it "
        "on larger inputs, where a slow form runs out of time."]


def test_sessions_opened_before_one_that_failed_are_closed(monkeypatch, assignment):
    opened = []

    class Session:
        def __init__(self, **kwargs):
            if len(opened) == 2:
                raise RuntimeError("the third worker did not start")
            self.closed = False
            opened.append(self)

        def close(self):
            self.closed = True

    monkeypatch.setattr(grading_check, "WorkerSession", Session)
    monkeypatch.setattr(grading_check, "portable_reason", lambda: None)
    with pytest.raises(RuntimeError, match="third worker"):
        grading_check.open_sessions(assignment, 3)
    assert [s.closed for s in opened] == [True, True]
