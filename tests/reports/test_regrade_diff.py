"""The regrade diff: exactly the submissions whose total changed, by how much, and the tests that changed."""

from autograder.model.roster import Entry, Student
from autograder.reports import regrade_diff
from tests.helpers import make_report

BEFORE = {
    "a": make_report("a", {"p": [("t1", 1, True), ("t2", 1, False)]}),
    "b": make_report("b", {"p": [("t1", 1, False), ("t2", 1, False)]}),
    "c": make_report("c", {"p": [("t1", 1, True), ("t2", 1, False)]}),
    "gone": make_report("gone", {"p": [("t1", 1, True)]}),
}
AFTER = {
    "a": make_report("a", {"p": [("t1", 3, True), ("t2", 1, False)]}),
    "b": make_report("b", {"p": [("t1", 3, False), ("t2", 1, False)]}),
    "c": make_report("c", {"p": [("t1", 1, False), ("t2", 1, True)]}),
    "new": make_report("new", {"p": [("t1", 3, True), ("t3", 1, True)]}),
}


def test_only_changed_totals_are_listed_with_their_tests():
    changes = regrade_diff.compare(BEFORE, AFTER)
    assert [(c.submission, c.before, c.after, c.delta) for c in changes] == [
        ("a", 1.0, 3.0, 2.0), ("gone", 1.0, None, -1.0), ("new", None, 4.0, 4.0)]
    assert changes[0].tests == [regrade_diff.ChangedTest("p: t1", "1/1", "3/3")]
    assert regrade_diff.moved_tests_only(BEFORE, AFTER) == ["b", "c"]
    assert regrade_diff.changed_tests(BEFORE["gone"], AFTER["new"]) == [
        regrade_diff.ChangedTest("p: t1", "1/1", "3/3"), regrade_diff.ChangedTest("p: t3", "", "1/1")]
    assert regrade_diff.changed_tests(AFTER["new"], BEFORE["gone"])[-1] == regrade_diff.ChangedTest("p: t3", "1/1", "")


def test_render_names_the_students():
    roster = {"a": Entry((Student("Ada", "7", "ada@x"), Student("Bo", "", "bo@x")))}
    changes = regrade_diff.compare(BEFORE, AFTER)
    text = regrade_diff.render(changes, "old/", 4, roster, regrade_diff.moved_tests_only(BEFORE, AFTER))
    assert text.splitlines() == [
        "Regrade against old/: 3 of 4 submissions changed score by +2 each.",
        "Ada (7) <ada@x>, Bo <bo@x> [a]: 1 -> 3 (+2)",
        "    p: t1: 1/1 -> 3/3",
        "gone: 1 -> not graded (-1)",
        "new: not graded -> 4 (+4)",
        "Same total, but some test's points or maximum changed: b, c",
    ]


def test_the_headline_says_how_many_changed_by_how_much_and_whether_the_maximum_moved():
    changes = regrade_diff.compare(BEFORE, AFTER)
    maxima = (regrade_diff.maximum(BEFORE), regrade_diff.maximum(AFTER))
    assert maxima == (2.0, 4.0)
    assert regrade_diff.headline(changes, "old/", 4, maxima) == (
        "Regrade against old/: 3 of 4 submissions changed score by +2 each; the maximum moved from 2 to 4.")
    mixed = [regrade_diff.Change("x", 1.0, 4.0), regrade_diff.Change("y", 3.0, 1.0)]
    assert regrade_diff.headline(mixed, "old/", 9, (4.0, 4.0)) == (
        "Regrade against old/: 2 of 9 submissions changed score by -2 to +3; the maximum stayed 4.")
    assert regrade_diff.headline([], "old/", 9, (4.0, 4.0)) == "Regrade against old/: 0 of 9 submissions changed score; the maximum stayed 4."
