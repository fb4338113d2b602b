"""gradescope_upload.csv: Name, SID, Email, Total Score; one row per graded student, never a 0 by accident."""

import csv
import io

from autograder.model.roster import Entry, Student
from autograder.reports import upload_csv
from tests.helpers import make_report

ADA, BOB = Student("Ada, Countess", "7", "ada@x"), Student('Bob "B"', "", "bob@x")


def test_rows_per_student_and_every_left_out_submission_named():
    reports = {
        "submission_1": make_report("1", {"m": [("a", 2.5, True), ("b", 1, False)]}),
        "submission_2": make_report("2", {"m": [("a", 2.5, False)]}),
        "submission_3": make_report("3", {}, notes=("grader error: OSError: disk full",)),
        "submission_4": make_report("4", {"m": [("a", 2.5, True)]}),
        "submission_6": make_report("6", {"m": [("a", 2.5, True)]}),
        "submission_7": make_report("7", {"m": [("a", 2.5, True)]}),
    }
    roster = {
        "submission_1": Entry((ADA, BOB)),
        "submission_2": Entry((Student("Cy", "9", ""),)),
        "submission_3": Entry((Student("Di", "10", "di@x"),)),
        "submission_4": Entry(note="bad entry"),
        "submission_5": Entry((Student("Ed", "11", "ed@x"),), "no folder", True),
        "submission_6": Entry((Student("Nobody", "", ""),)),
        "submission_7": Entry((Student("Ada again", "7", "ADA@x"),)),
    }
    upload = upload_csv.build(reports, roster)
    text = upload_csv.render(upload)
    assert list(csv.reader(io.StringIO(text))) == [
        ["Name", "SID", "Email", "Total Score"],
        ["Ada, Countess", "7", "ada@x", "2.5"],
        ['Bob "B"', "", "bob@x", "2.5"],
        ["Cy", "9", "", "0"],
    ]
    assert upload.left_out == [
        "submission_3: the grader failed on it (grader error: OSError: disk full); grade it again with --force",
        "submission_4: its submitters are unknown (bad entry)",
        "submission_5: not graded (no folder)",
        "submission_6: Nobody has neither SID nor email to match on Gradescope",
        "submission_7: Ada again already has a row from submission_1",
    ]
