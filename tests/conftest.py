"""Shared fixtures: the assignment manifest, and every problem's variants graded once per session."""

from concurrent.futures import ThreadPoolExecutor

import pytest

from autograder import manifest, validation

# Problems whose validation waits out a per-call time limit (a quadratic-time mistake): started first.
SLOWEST = ("random_features", "causal_linear_attention")


@pytest.fixture(scope="session")
def assignment():
    return manifest.load()


@pytest.fixture(scope="session")
def graded_variants(assignment):
    """``outcomes(problem)``: the reference, stub, mistakes and fair variants of a problem, graded once per session.

    Validation is the slowest part of the suite and the tests that read it share one run. The first
    request grades every problem, two at a time (each has its own worker process; the grader mostly
    waits on them), so the long waits of two problems overlap.
    """
    pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="validation")
    futures = {}

    def outcomes(problem):
        if not futures:
            for p in sorted(assignment.problems, key=lambda p: p.module not in SLOWEST):
                futures[p.module] = pool.submit(validation.grade_variants, p)
        return futures[problem.module].result()

    yield outcomes
    pool.shutdown(wait=True, cancel_futures=True)
