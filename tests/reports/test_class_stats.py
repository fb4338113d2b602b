"""Class statistics are counts over records: pass rates, known mistakes (once per submission), scores, time."""

from autograder.reports import class_stats
from tests.helpers import make_report

MODULES = ["p", "q"]
REPORTS = [
    make_report("a", {"p": [("t1", 1, True), ("t2", 2, False, "m1", "m2")], "q": [("u", 1, False, "m3")]}, seconds=3,
                hints={"m2": "hint of p/m2"}),
    make_report("b", {"p": [("t1", 1, False, "m1"), ("t2", 2, False, "m1")], "q": [("u", 1, True)]}, seconds=9,
                hints={"m1": "hint of p/m1"}),
    make_report("c", {"p": [("t1", 1, True), ("t2", 2, True)], "q": [("u", 1, True)]}, seconds=1),
    make_report("d", {}, seconds=20, notes=("grader error: boom",)),
]


def test_pass_rates_per_test_lowest_first_over_graded_submissions():
    rates = class_stats.pass_rates(REPORTS, MODULES)
    assert [(r.test, r.passed, r.graded, r.points) for r in rates["p"]] == [("t2", 1, 3, 2.0), ("t1", 2, 3, 1.0)]
    assert [(r.test, r.passed, r.graded) for r in rates["q"]] == [("u", 2, 3)]
    assert rates["p"][0].share == 1 / 3


def test_a_mistake_counts_once_per_submission_most_first():
    counts = class_stats.mistake_counts(REPORTS, MODULES)  # the hint is the one the records kept (a record without one: the next)
    assert [(c.mistake, c.submissions, c.tests, c.hint) for c in counts["p"]] == [
        ("m1", 2, ("t2", "t1"), "hint of p/m1"), ("m2", 1, ("t2",), "hint of p/m2")]
    assert [(c.mistake, c.submissions) for c in counts["q"]] == [("m3", 1)]
    assert [c.hint for c in counts["q"]] == [""]
    assert class_stats.mistake_counts(REPORTS[2:], MODULES) == {"p": [], "q": []}


def test_score_lines_counts_and_slowest():
    lines = class_stats.score_lines(REPORTS[:3], MODULES)
    assert [(s.label, s.mean, s.median, s.full, s.top) for s in lines] == [
        ("p", 4 / 3, 1.0, 1 / 3, 3.0), ("q", 2 / 3, 1.0, 2 / 3, 1.0), ("TOTAL", 2.0, 1.0, 1 / 3, 4.0)]
    assert class_stats.score_lines([], MODULES)[0].mean is None
    assert class_stats.score_counts(REPORTS, "p") == {0.0: 1, 1.0: 1, 3.0: 1}
    named = {r.submission: r for r in REPORTS}
    assert [name for name, _ in class_stats.slowest(named, 2)] == ["d", "b"]

