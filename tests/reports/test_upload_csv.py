"""gradescope_upload.csv: Name, SID, Email, Total Score; one row per graded student, never a 0 by accident."""

import csv
import io

from autograder.model import scores
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
        ['Bob "B"', "", "bob@x", "2.5"],
        ["Cy", "9", "", "0"],
    ]
    assert upload.left_out == [
        "submission_3: the grader failed on it (grader error: OSError: disk full); run grade-all again to grade it again",
        "submission_4: its submitters are unknown (bad entry)",
        "submission_5: not graded (no folder)",
        "submission_6: Nobody has neither SID nor email to match on Gradescope",
    ]
    # Ada is in two submissions and neither says when it was made: no row, and a conflict that says why.
    assert upload.conflicts == ["Ada, Countess / Ada again: in submission_1, submission_7, and which is the latest cannot be told "
                                "(:created_at: missing or equal); none is uploaded: enter this score by hand"]


def test_a_student_in_two_submissions_gets_the_latest_and_no_row_carries_another_students_details():
    reports = {name: make_report(name, {"m": [("a", points, True)]}) for name, points in
               (("s_old", 1), ("s_new", 2), ("s_group", 3), ("s_other", 4), ("s_unread", 5))}
    reports["s_unread"].problems[0].kind = scores.UNREADABLE
    reports["s_unread"].problems[0].status = "qkv.py could not be read: its bytes in the zip are damaged (Bad CRC-32)"
    eve, eve_typo = Student("Eve", "20", "eve@x"), Student("Eve T", "21", "EVE@x")  # the same email, another SID
    roster = {
        "s_old": Entry((eve,), created_at="2024-03-01T10:00:00-08:00"),
        "s_new": Entry((eve_typo,), created_at="2024-03-01T19:00:00+00:00"),  # 11:00 at -08:00: the later one
        "s_group": Entry((Student("Fay", "30", "fay@x"), Student("Gil", "31", "gil@x")), created_at="2024-03-02T10:00:00+00:00"),
        "s_other": Entry((Student("Fay", "30", "fay@x"),), created_at="2024-03-01T10:00:00+00:00"),
        "s_unread": Entry((Student("Hal", "40", "hal@x"),), created_at="2024-03-01T10:00:00+00:00"),
    }
    upload = upload_csv.build(reports, roster)
    assert upload.rows == [["Fay", "30", "fay@x", "3"], ["Gil", "31", "gil@x", "3"], ["Eve T", "21", "EVE@x", "2"]]
    assert "s_old: Eve has a later submission, s_new" in upload.left_out
    assert "s_other: Fay has a later submission, s_group" in upload.left_out
    assert [r for r in upload.left_out if r.startswith("s_unread")] == [
        "s_unread: could not read: qkv.py could not be read: its bytes in the zip are damaged (Bad CRC-32); ask the student for the file, or download the export again"]
    assert len(upload.conflicts) == 1 and "s_new: Eve T <EVE@x> SID 21; s_old: Eve <eve@x> SID 20" in upload.conflicts[0]
    assert "uploaded the latest, s_new" in upload.conflicts[0]


def test_formula_cells_are_neutralised_and_read_back_intact():
    names = ["=HYPERLINK(\"http://x\",\"y\")", "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)", "\tTab", "\rCR", "Plain, \"quoted\""]
    reports = {f"s{i}": make_report(f"s{i}", {"m": [("a", 1, True)]}) for i in range(len(names))}
    roster = {f"s{i}": Entry((Student(name, f"{i}", f"u{i}@x"),)) for i, name in enumerate(names)}
    rows = list(csv.reader(io.StringIO(upload_csv.render(upload_csv.build(reports, roster)))))
    assert [r[0] for r in rows[1:]] == ["'" + n for n in names[:-1]] + [names[-1]]
    assert all(r[3] == "1" for r in rows[1:])


def test_one_upload_rule_the_students_packaging_is_uploaded_what_the_download_broke_is_left_out():
    kinds = {"dup": scores.PACKAGING, "misnamed": scores.MISNAMED, "syntax": scores.IMPORT_FAILED, "missing": scores.MISSING,
             "damaged": scores.UNREADABLE}
    reports = {}
    for name, kind in kinds.items():
        reports[name] = make_report(name, {"m": [("a", 5, True)], "n": [("b", 3, False)]})
        reports[name].problems[1].kind, reports[name].problems[1].status = kind, f"n.py: {kind}"
    roster = {name: Entry((Student(name, str(i), f"{name}@x"),)) for i, name in enumerate(kinds)}
    upload = upload_csv.build(reports, roster)
    assert [row[0] for row in upload.rows] == ["dup", "misnamed", "missing", "syntax"] and {row[3] for row in upload.rows} == {"5"}
    assert upload.left_out == ["damaged: could not read n: n.py: unreadable; ask the student for the file, or download the export again"]
