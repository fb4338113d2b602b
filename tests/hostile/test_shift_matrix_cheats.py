"""Cheats on what a test of problem 4 (shift_matrix) means: not code students write (so not known mistakes), but
modules built to keep points a test gives for a property they do not have.

Each case is the reference shift_matrix.py with ``hostile/cheats/shift_matrix/<case>.py`` appended (what it redefines
replaces the reference's), graded on the tests it aims at only: each must fail, and say why in the student's words;
the reference passes them all. Grading does not depend on the sandbox mode here (the tests judge plain data), so the
default mode only.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from autograder.grading import grader
from autograder.grading.runner import load_tests
from autograder.model import manifest, paths
from tests.helpers import reference_submission

MODULE = "shift_matrix"
CHEATS = Path(__file__).resolve().parent / "cheats" / MODULE
ODD_D = r"an odd d should raise ValueError; instead:\n.* raised AssertionError"
OWN_CLASS = r"an odd d should raise ValueError; instead:\n.* raised ValueError \(a class of its own, not Python's ValueError\)"
SAME_ROW = r"your encoding gives positions \d+ and \d+ the same row"
CASES = {  # case -> {test it must fail: what the student must read}
    # The odd-d tests judge the exception's type, never its message.
    "assert_imitates_value_error": {"odd_d_raises_value_error": ODD_D, "odd_d_raises_value_error_in_both_functions": ODD_D},
    # ... and by what it is an instance of, never by its name.
    "own_class_named_value_error": {test: OWN_CLASS for test in ("odd_d_raises_value_error", "odd_d_raises_value_error_in_both_functions")},
    # "M moves your encoding" needs an encoding that tells positions apart; orthogonality and composition need an M
    # that moves something.
    "zero_encoding_identity_shift": {"shift_moves_your_encoding_one_step": SAME_ROW, "shift_moves_your_own_encoding": SAME_ROW,
                                     "orthogonal_and_composes": r"this M leaves positions where they are"},
    "constant_encoding_identity_shift": {"shift_moves_your_encoding_one_step": SAME_ROW, "shift_moves_your_own_encoding": SAME_ROW},
}
AIMED = sorted({test for tests in CASES.values() for test in tests})


def graded(folder: Path) -> dict[str, object]:
    """The aimed-at tests of problem 4 graded on ``folder``: test name -> its result."""
    assignment = manifest.load()
    problem = assignment.problem(MODULE)
    tests = {MODULE: [t for t in load_tests(problem, include_hidden=True) if t.name in AIMED]}
    assert sorted(t.name for t in tests[MODULE]) == AIMED, "a test named in CASES no longer exists"
    only = dataclasses.replace(assignment, problems=(problem,))
    (result,) = grader.grade(folder, only, grader.Purpose.GRADING, tests=tests).problems
    return {test.name: test for test in result.tests}


def test_the_reference_passes_every_aimed_at_test(tmp_path):
    for name, test in graded(reference_submission(tmp_path / "reference")).items():
        assert test.passed, f"{name}: {test.message}"


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_cheat_loses_the_points_it_aims_at(case, tmp_path):
    source = (paths.REFERENCE / f"{MODULE}.py").read_text() + "\n\n" + (CHEATS / f"{case}.py").read_text()
    results = graded(reference_submission(tmp_path / case, replace={MODULE: source}))
    for name, says in CASES[case].items():
        test = results[name]
        assert not test.passed, f"{case} keeps {name}"
        assert re.search(says, test.message), f"{case}, {name}: {test.message}"
