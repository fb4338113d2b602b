"""Shared fixtures: the assignment manifest, and every problem's variants graded once per session."""

import pytest

from autograder import manifest, validation


@pytest.fixture(scope="session")
def assignment():
    return manifest.load()


@pytest.fixture(scope="session")
def graded_variants():
    """``outcomes(problem)``: the reference, stub, mistakes and fair variants of a problem, graded once per session.

    Validation is the slowest part of the suite; the tests that read its results share one run.
    """
    cache = {}

    def outcomes(problem):
        if problem.module not in cache:
            cache[problem.module] = validation.grade_variants(problem)
        return cache[problem.module]

    return outcomes
