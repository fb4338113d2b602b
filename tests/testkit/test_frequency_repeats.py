"""Problem 5's repeat finder (``repeated_rows`` in its support file): the rows it pairs are exactly those a direct
comparison of every pair finds, whatever the sample."""

import numpy as np
import pytest

from autograder.testkit import problem_helpers


def every_pair(W):
    """The definition, pair by pair: (first, later) for each later row alike a row before it up to signs and order."""
    keys = [tuple(sorted(abs(float(x)) for x in row)) for row in W]
    return [(keys.index(keys[later]), later) for later in range(len(keys)) if keys.index(keys[later]) != later]


@pytest.mark.parametrize("seed", range(40))
def test_pairs_the_rows_a_direct_comparison_pairs(assignment, seed):
    rng = np.random.default_rng(seed)
    n, D = int(rng.integers(0, 40)), int(rng.integers(0, 5))
    W = rng.integers(-2, 3, size=(n, D)) * 0.5  # few distinct values: many rows alike, many sharing their largest
    if seed % 2:
        W = np.vstack([rng.standard_normal((n, D)), -W[:, ::-1]])
    assert problem_helpers.problem_support("random_features").repeated_rows(W) == every_pair(W)


def test_finds_a_negated_and_a_permuted_copy_in_a_large_gaussian_sample(assignment):
    W = np.random.default_rng(0).standard_normal((20_000, 9))
    W[12_345], W[19_999] = -W[7], W[3][::-1]
    found = problem_helpers.problem_support("random_features").repeated_rows(W)
    assert found == [(7, 12_345), (3, 19_999)]
    assert not problem_helpers.problem_support("random_features").repeated_rows(np.delete(W, [12_345, 19_999], axis=0))


def test_every_pair_is_the_definition():
    assert every_pair(np.array([[1.0, -2.0], [2.0, 1.0], [3.0, 1.0], [-1.0, 2.0]])) == [(0, 1), (0, 3)]
    assert every_pair(np.zeros((0, 3))) == []
