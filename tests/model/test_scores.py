"""Score records survive a round trip through a dict, and records written before a field existed still load."""

from autograder.model import scores
from autograder.model.scores import GradeReport, ProblemResult


def test_round_trip_keeps_mistakes_and_old_records_load():
    test = scores.TestResult("m", "t", 2.0, True, False, "Hint: x", 0.5, {"x": "x"}, {"Called": "m.f()", "Hint": "x"})
    report = GradeReport("s", [ProblemResult("m", "M", [test], "m.py was not found", "", scores.MISSING)], ["n"], 1.5, ["sandbox: ..."])
    again = GradeReport.from_dict(report.to_dict())
    assert again == report and again.problems[0].tests[0].mistakes == {"x": "x"} and again.problems[0].kind == scores.MISSING
    old = report.to_dict()
    del old["problems"][0]["tests"][0]["mistakes"], old["problems"][0]["tests"][0]["details"], old["problems"][0]["output"]
    del old["problems"][0]["kind"], old["staff_notes"]
    loaded = GradeReport.from_dict(old)
    assert loaded.problems[0].tests[0].mistakes == {} and loaded.points == 0.0 and loaded.max_points == 2.0
    assert loaded.problems[0].kind == scores.OTHER and loaded.staff_notes == []
    old["problems"][0]["tests"][0]["mistakes"], old["problems"][0]["status"] = ["x", "y"], "ok"  # names only, before hints were kept
    loaded = GradeReport.from_dict(old)
    assert loaded.problems[0].tests[0].mistakes == {"x": "", "y": ""} and loaded.problems[0].kind == scores.GRADED
