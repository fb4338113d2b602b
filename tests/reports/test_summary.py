"""summary.txt: scores, pass rate per test, known mistakes per problem, score counts and the slowest submissions."""

from autograder.reports import summary
from tests.helpers import make_report

NAMED = {
    "alice": make_report("alice", {"p": [("t1", 1, True), ("t2", 2, False, "m1")]}, seconds=2.5, hints={"m1": "x" * 200}),
    "bob": make_report("bob", {"p": [("t1", 1, False, "m1", "m2"), ("t2", 2, False, "m1")]}, seconds=7.25, hints={"m1": "x" * 200}),
    "cy": make_report("cy", {"p": [("t1", 1, True), ("t2", 2, True)]}, seconds=0.5),
}


def section(text, title):
    return next(part for part in text.split("\n\n") if part.startswith(title)).splitlines()


def test_every_section_counts_from_the_records():
    text = summary.render(NAMED, ["p"])
    assert section(text, "3 submissions")[1:] == [
        "problem                        mean   median   full    max",
        "p                              1.33     1.00    33%      3",
        "TOTAL                          1.33     1.00    33%      3"]
    assert section(text, "Tests passed")[1:] == ["  p", "      33%     1/3     t2 (2 pt)", "      67%     2/3     t1 (1 pt)"]
    assert section(text, "Known mistakes")[1:] == ["  p", f"        2  m1: {'x' * 97}...", "           in: alice, bob",
                                                   "        1  m2", "           in: bob"]
    assert section(text, "Scores per problem")[1:] == ["  p                          0: 1   1: 1   3: 1"]
    assert section(text, "Slowest to grade")[1:] == ["       7.2 s  bob  scored 0", "       2.5 s  alice  ok", "       0.5 s  cy  ok"]


def test_no_mistake_and_no_submission_are_said_so():
    text = summary.render({"cy": NAMED["cy"]}, ["p"])
    assert section(text, "Known mistakes")[1:] == ["  p", "        -  no known mistake matched"]
    assert summary.render({}, ["p"]).startswith("0 submissions")
