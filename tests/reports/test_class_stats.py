"""Class statistics are counts over records: pass rates, known mistakes (once per submission), scores, time."""

from autograder.model import scores
from autograder.model.roster import Entry, Student
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



def test_pass_rates_leave_out_modules_that_were_not_graded():
    missing = make_report("e", {"p": [("t1", 1, False), ("t2", 2, False)], "q": [("u", 1, False)]})
    missing.problems[0].kind, missing.problems[1].kind = scores.MISSING, scores.UNREADABLE
    rates = class_stats.pass_rates([*REPORTS, missing], MODULES)
    assert [(r.test, r.passed, r.graded) for r in rates["p"]] == [("t2", 1, 3), ("t1", 2, 3)]
    assert [(r.test, r.passed, r.graded) for r in rates["q"]] == [("u", 2, 3)]


def test_needs_attention_lists_zero_ungraded_unreadable_and_timed_out_with_the_reasons():
    zero = make_report("zero", {"p": [("t1", 1, False)], "q": [("u", 1, False)]})
    empty = make_report("empty", {"p": [("t1", 1, False)], "q": [("u", 1, False)]})
    for problem in empty.problems:
        problem.kind, problem.status = scores.MISSING, f"{problem.module}.py was not found in the submission"
    unread = make_report("unread", {"p": [("t1", 1, True)], "q": [("u", 1, False)]})
    unread.problems[1].kind, unread.problems[1].status = scores.UNREADABLE, "q.py could not be read: its bytes in the zip are damaged (Bad CRC-32)"
    slow = make_report("slow", {"p": [("t1", 1, True)], "q": [("u", 1, False), ("v", 1, False)]})
    slow.problems[1].tests[0].failure = slow.problems[1].tests[1].failure = "timeout"
    named = {r.submission: r for r in [*REPORTS, zero, empty, unread, slow]}
    roster = {"zero": Entry((Student("Zed", "1", "z@x"),)), "gone": Entry(note="no folder gone/", missing=True)}
    found = {a.submission: a for a in class_stats.needs_attention(named, roster)}
    assert sorted(found) == ["d", "empty", "gone", "slow", "unread", "zero"]
    assert found["d"].reasons == ("not graded: the grader failed (grader error: boom)",)
    assert found["empty"].reasons == ("scored 0: no module file found",) and found["empty"].total == "0"
    assert found["gone"].reasons == ("no folder gone/",) and found["gone"].total == ""
    assert found["slow"].reasons == ("timed out: q (2 tests)",) and found["slow"].total == "1"
    assert found["unread"].reasons == ("could not read q: q.py could not be read: its bytes in the zip are damaged (Bad CRC-32)",)
    assert found["zero"].reasons == ("scored 0",) and found["zero"].students == "Zed"


def test_needs_attention_lists_a_problem_lost_to_packaging_with_the_reason():
    named = {}
    for kind, status in ((scores.MISNAMED, "q.py was not found; did you mean q (1).py? Rename it to q.py"),
                         (scores.PACKAGING, "q.py was found 2 times (a/q.py, q.py)"), (scores.IMPORT_FAILED, "SyntaxError: bad")):
        named[kind] = make_report(kind, {"p": [("t1", 1, True)], "q": [("u", 1, False)]})
        named[kind].problems[1].kind, named[kind].problems[1].status = kind, status
    found = {a.submission: a.reasons for a in class_stats.needs_attention(named)}
    assert found == {scores.MISNAMED: ("q: q.py was not found; did you mean q (1).py? Rename it to q.py",),
                     scores.PACKAGING: ("q: q.py was found 2 times (a/q.py, q.py)",),
                     scores.IMPORT_FAILED: ("q could not be imported: SyntaxError: bad",)}


def test_needs_attention_asks_for_a_rerun_where_the_machine_was_too_busy_or_slow():
    crowded = make_report("crowded", {"p": [("t1", 1, False)], "q": [("u", 1, False), ("v", 1, True)]})
    crowded.problems[0].tests[0].failure, crowded.problems[1].tests[0].failure = "busy", "deadline"
    found = {a.submission: a for a in class_stats.needs_attention({"crowded": crowded})}
    assert found["crowded"].reasons == ("rerun: the machine was too busy or slow to time p fairly (1 test)",
                                        "rerun: the machine was too busy or slow to time q fairly (1 test)")


def test_needs_attention_asks_for_a_regrade_where_the_grader_had_no_expected_value():
    unjudged = make_report("unjudged", {"p": [("t1", 1, True)], "q": [("u", 1, False), ("v", 1, False), ("w", 1, True)]})
    unjudged.problems[1].tests[0].failure = unjudged.problems[1].tests[1].failure = scores.NO_EXPECTED
    found = {a.submission: a for a in class_stats.needs_attention({"unjudged": unjudged})}
    assert found["unjudged"].reasons == ("regrade: the grader had no expected value for 2 tests of q (its fault)",)
