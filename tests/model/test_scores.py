"""Score records survive a round trip through a dict, and records written before a field existed still load."""

from autograder.model import scores
from autograder.model.scores import GradeReport, ProblemResult


def test_round_trip_keeps_mistakes_and_old_records_load():
    report = GradeReport("s", [ProblemResult("m", "M", [scores.TestResult("m", "t", 2.0, True, False, "Hint: x", 0.5, ["x"])])], ["n"], 1.5)
    again = GradeReport.from_dict(report.to_dict())
    assert again == report and again.problems[0].tests[0].mistakes == ["x"]
    old = report.to_dict()
    del old["problems"][0]["tests"][0]["mistakes"], old["problems"][0]["status"], old["problems"][0]["output"]
    loaded = GradeReport.from_dict(old)
    assert loaded.problems[0].tests[0].mistakes == [] and loaded.points == 0.0 and loaded.max_points == 2.0
