"""grades.csv: a row per submission for a plain folder; per student for an export (groups repeated, gaps explained)."""

import csv
import io

from autograder.model import scores
from autograder.model.roster import Entry, Student
from autograder.reports import csv_report
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
    assert csv_report.status(broken) == "grader error: RuntimeError: boom"
    partial = make_report("y", {"qkv_arithmetic": [("a", 1, True)], "complexity": [("c", 1, False)]})
    partial.problems[1].status, partial.problems[1].kind = "complexity.py was not found in the submission", scores.MISSING
    assert csv_report.status(partial) == "missing complexity.py"
    partial.problems[1].kind = scores.UNREADABLE  # the kind decides, never the words
    assert csv_report.status(partial) == "could not read: complexity: complexity.py was not found in the submission"


def test_formula_cells_are_neutralised_and_every_value_survives_a_csv_reader():
    evil = ["=HYPERLINK(\"http://x\",\"y\")", "+1+cmd|' /C calc'!A0", "-2", "@SUM(A1)", "\tx", "\rx", "a\nb, \"c\""]
    roster = {f"s{i}": Entry((Student(name, name, name),)) for i, name in enumerate(evil)}
    text = csv_report.render([(f"s{i}", GOOD) for i in range(len(evil))] + [("=s", GOOD)], MODULES, roster)
    found = rows(text)
    expected = ["'" + name if name[0] in "=+-@\t\r" else name for name in evil]
    assert [r[0] for r in found[1:-1]] == expected and [r[1] for r in found[1:-1]] == expected
    assert found[-1][3] == "'=s" and all(r[-3] == "5" for r in found[1:])  # the numbers are untouched
