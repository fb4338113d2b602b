"""results.json: one entry per test, each shown when the assignment's visibility says."""

import dataclasses

from autograder.model.manifest import DEFAULT_VISIBILITY, Visibility
from autograder.reports import results_json
from tests.helpers import make_report


def report_with_hidden_test_and_output():
    report = make_report("s", {"qkv_arithmetic": [("public_one", 1, True), ("hidden_one", 2, False)]})
    problem = report.problems[0]
    problem.tests[1] = dataclasses.replace(problem.tests[1], hidden=True)
    problem.output = "printed\n"
    return report


def test_default_visibility_shows_public_tests_at_once_and_the_rest_after_publication():
    tests = results_json.to_results(report_with_hidden_test_and_output())["tests"]
    assert [(t["name"], t["visibility"]) for t in tests] == [
        ("qkv_arithmetic: public_one", "visible"), ("qkv_arithmetic: hidden_one", "after_published"),
        ("qkv_arithmetic: output printed by your code", "after_published")]
    assert results_json.to_results(report_with_hidden_test_and_output(), DEFAULT_VISIBILITY)["tests"] == tests


def test_visibility_comes_from_the_assignment(tmp_path):
    visibility = Visibility(public="after_due_date", hidden="hidden", output="visible")
    results_json.write(report_with_hidden_test_and_output(), tmp_path / "results.json", visibility)
    tests = results_json.to_results(report_with_hidden_test_and_output(), visibility)["tests"]
    assert [t["visibility"] for t in tests] == ["after_due_date", "hidden", "visible"]
    assert '"after_due_date"' in (tmp_path / "results.json").read_text()


def test_what_hidden_tests_printed_is_named_and_measured_never_shown():
    report = report_with_hidden_test_and_output()
    problem = report.problems[0]
    problem.hidden_printed = {"hidden_one": 2048}
    problem.staff_output = "printed\n[[0.123, 4.56]]\n"  # a hidden test's inputs, printed
    entry = results_json.to_results(report)["tests"][-1]
    assert entry["name"] == "qkv_arithmetic: output printed by your code"
    assert entry["output"].startswith("printed\n") and "hidden_one (2048 bytes)" in entry["output"]
    assert "0.123" not in entry["output"]


def test_a_problem_that_printed_only_in_hidden_tests_still_says_so():
    report = report_with_hidden_test_and_output()
    problem = report.problems[0]
    problem.output, problem.hidden_printed = "", {"hidden_one": 30 << 10}
    entry = results_json.to_results(report)["tests"][-1]
    assert entry["name"].endswith("output printed by your code") and "hidden_one (30 KB)" in entry["output"]


def test_the_printed_entry_stays_within_its_limit_with_many_hidden_tests_and_a_flood():
    report = report_with_hidden_test_and_output()
    problem = report.problems[0]
    problem.output = "x" * 50_000 + "\nthe last public line\n"
    problem.hidden_printed = {f"hidden_test_number_{i}_with_a_long_descriptive_name": 1256 for i in range(40)}
    entry = results_json.to_results(report)["tests"][-1]
    assert len(entry["output"]) <= results_json.RESULTS_TEXT_LIMIT, len(entry["output"])
    assert "the last public line" in entry["output"] and "and 20 more (24 KB in all)" in entry["output"]
