"""The self-check: as root it switches no uid, makes nothing private and builds no Python mirror; its verdict in words."""

import os

import pytest

from autograder.grading import selfcheck
from autograder.model import paths
from autograder.sandbox import identity, runtime


@pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0, reason="what a self-check skips is what a root grader does")
def test_a_self_check_as_root_leaves_nothing_behind(monkeypatch, assignment):
    def forbidden(*args, **kwargs):
        raise AssertionError("a self-check must not lease a uid, chmod a folder or mirror Python")

    monkeypatch.delenv("AUTOGRADER_PORTABLE", raising=False)
    for owner, name in ((identity, "lease"), (runtime, "make_private"), (runtime, "_mirror"), (runtime, "verify")):
        monkeypatch.setattr(owner, name, forbidden)
    mode = os.stat(paths.ROOT).st_mode
    report = selfcheck.run(paths.REFERENCE, assignment, ["receptive_field"])
    assert report.all_passed, [t.message for p in report.problems for t in p.tests if not t.passed]
    assert os.stat(paths.ROOT).st_mode == mode


def test_the_verdict_says_what_passing_means(assignment):
    report = selfcheck.run(paths.TEMPLATES, assignment, ["receptive_field"])
    text = selfcheck.verdict(report, assignment)
    tests = sum(len(p.tests) for p in report.problems)
    problem = assignment.problem("receptive_field")
    assert text.startswith(f"{tests} of {tests} public tests fail")
    assert f"carry {report.max_points:g} of this problem's {problem.points:g} points" in text and "after you submit" in text
