"""problem_support: one problem's shared test helpers, loaded from its folder on every path."""

import pytest

from autograder.model import paths
from autograder.testkit import problem_helpers


def test_loads_the_support_module_of_a_problem_once(assignment):
    loaded = problem_helpers.problem_support("shift_matrix")
    assert callable(loaded.array_of_shape)
    assert loaded.__file__ == str(paths.ASSIGNMENTS / "shift_matrix" / "tests" / "support.py")
    assert problem_helpers.problem_support("shift_matrix") is loaded


def test_a_missing_support_file_names_the_path(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "ASSIGNMENTS", tmp_path)
    with pytest.raises(FileNotFoundError, match=r"tests/support\.py is missing"):
        problem_helpers.problem_support("no_such_problem")


def test_every_support_file_is_used_by_its_tests(assignment):
    for problem in assignment.problems:
        support = problem_helpers.support_path(problem.module)
        if support.is_file():
            users = [p for p, _ in problem.test_files(include_hidden=True) if f'problem_support("{problem.module}")' in p.read_text()]
            assert users, f"{support} is not loaded by any test file of {problem.module}"
