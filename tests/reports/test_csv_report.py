"""grades.csv: a row per submission for a plain folder; per student for an export (groups repeated, gaps explained)."""

import csv
import io

from autograder.model import scores
from autograder.model.roster import Entry, Student
from autograder.reports import class_stats, csv_report
from tests.helpers import make_report

MODULES = ["qkv_arithmetic", "complexity"]
GOOD = make_report("s1", {"qkv_arithmetic": [("a", 2, True), ("b", 1, False)], "complexity": [("c", 3, True)]}, seconds=1.234)


def rows(text):
    return list(csv.reader(io.StringIO(text)))


def test_a_plain_folder_keeps_its_columns():
    assert rows(csv_report.render([("s1", GOOD)], MODULES)) == [
        ["submission", "qkv_arithmetic", "complexity", "total", "seconds", "status"],
        ["s1", "2", "3", "5", "1.23", "ok"]]


def test_an_export_has_a_row_per_student_and_explains_every_gap():
    roster = {
        "submission_1": Entry((Student("Ada, Countess", "7", "ada@x"), Student('Bob "B"', "", "bob@x"))),
        "submission_2": Entry(note="submission_metadata.yml: entry submission_2: ':submitters:' should be a list"),
        "submission_3": Entry((Student("Cy", "9", "cy@x"),), "submission_metadata.yml lists submission_3 but the export has no folder submission_3/", True),
    }
    text = csv_report.render([("submission_1", GOOD), ("submission_2", GOOD), ("submission_3", None)], MODULES, roster)
    assert rows(text) == [
        ["name", "sid", "email", "submission", "qkv_arithmetic", "complexity", "total", "seconds", "status"],
        ["Ada, Countess", "7", "ada@x", "submission_1", "2", "3", "5", "1.23", "ok"],
        ['Bob "B"', "", "bob@x", "submission_1", "2", "3", "5", "1.23", "ok"],
        ["", "", "", "submission_2", "2", "3", "5", "1.23", "ok; submission_metadata.yml: entry submission_2: ':submitters:' should be a list"],
        ["Cy", "9", "cy@x", "submission_3", "", "", "", "", "submission_metadata.yml lists submission_3 but the export has no folder submission_3/"],
    ]


def test_status_names_what_went_wrong():
    broken = make_report("x", {}, notes=("grader error: RuntimeError: boom",))
    assert csv_report.status(broken) == "not graded: the grader failed (grader error: RuntimeError: boom)"
    partial = make_report("y", {"qkv_arithmetic": [("a", 1, True)], "complexity": [("c", 1, False)]})
    partial.problems[1].status, partial.problems[1].kind = "complexity.py was not found in the submission", scores.MISSING
    assert csv_report.status(partial) == "missing complexity.py"
    partial.problems[1].kind = scores.UNREADABLE  # the kind decides, never the words
    assert csv_report.status(partial) == "could not read complexity: complexity.py was not found in the submission"


def test_the_status_says_what_the_summary_lists_for_every_kind_of_trouble():
    """A status that says "ok" for a submission the summary lists under "needs attention" misleads whoever reads the CSV."""
    def one(kind="", status="", failure="", passed=True):
        report = make_report("s", {"qkv_arithmetic": [("a", 1, True)], "complexity": [("c", 1, passed)]})
        if kind:
            report.problems[1].kind, report.problems[1].status = kind, status
        report.problems[1].tests[0].failure = failure
        return report

    timed = one(failure="timeout", passed=False)
    assert csv_report.status(timed) == "timed out: complexity (1 test)"
    twice = one(scores.PACKAGING, "complexity.py was found 2 times (a/complexity.py, complexity.py); keep exactly one", passed=False)
    assert csv_report.status(twice) == "complexity: complexity.py was found 2 times (a/complexity.py, complexity.py); keep exactly one"
    misnamed = one(scores.MISNAMED, "complexity.py was not found in the submission; did you mean Complexity.py? Rename it", passed=False)
    assert csv_report.status(misnamed) == ("complexity: complexity.py was not found in the submission; did you mean Complexity.py? "
                                           "Rename it")
    syntax = one(scores.IMPORT_FAILED, "SyntaxError: invalid syntax (complexity.py, line 3)", passed=False)
    assert csv_report.status(syntax) == "complexity could not be imported: SyntaxError: invalid syntax (complexity.py, line 3)"
    for report in (timed, twice, misnamed, syntax, make_report("x", {}, notes=("grader error: boom",))):
        listed = class_stats.needs_attention({"s": report})
        assert listed and "; ".join(listed[0].reasons) == csv_report.status(report)
    for fine in (one(), one(passed=False)):  # a failed test is a score, not trouble
        assert csv_report.status(fine) == "ok" and class_stats.needs_attention({"s": fine}) == []


def test_formula_cells_are_neutralised_and_every_value_survives_a_csv_reader():
    evil = ["=HYPERLINK(\"http://x\",\"y\")", "+1+cmd|' /C calc'!A0", "-2", "@SUM(A1)", "\tx", "\rx", "a\nb, \"c\""]
    roster = {f"s{i}": Entry((Student(name, name, name),)) for i, name in enumerate(evil)}
    text = csv_report.render([(f"s{i}", GOOD) for i in range(len(evil))] + [("=s", GOOD)], MODULES, roster)
    found = rows(text)
    expected = ["'" + name if name[0] in "=+-@\t\r" else name for name in evil]
    assert [r[0] for r in found[1:-1]] == expected and [r[1] for r in found[1:-1]] == expected
    assert found[-1][3] == "'=s" and all(r[-3] == "5" for r in found[1:])  # the numbers are untouched
