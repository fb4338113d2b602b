"""Hints a failed call shows: the known mistake that names the cause at that call, once, never a compound of it or
a second wording of the same advice."""

import pytest

from autograder.grading import check as grading_check
from autograder.model import paths
from autograder.staff import solutions

WEIGHTS_IGNORE_CAUSAL = """

def attention_weights(Q, K, scale=1.0, causal=False):
    return softmax(attention_scores(Q, K, scale), dim=-1)
"""
FEATURE_DIM_COMB = """

import math


def kernel_feature_dim(D, degree):
    return math.comb(D + degree - 1, degree)
"""


@pytest.fixture(scope="module")
def failed(tmp_path_factory, assignment):
    """Test name -> the hints its failure shows, for one realistic mistake in each of problems 1, 3 and 4."""
    folder = tmp_path_factory.mktemp("hints")
    for module, wrong in (("qkv_arithmetic", WEIGHTS_IGNORE_CAUSAL), ("complexity", FEATURE_DIM_COMB)):
        (folder / f"{module}.py").write_text((paths.REFERENCE / f"{module}.py").read_text() + wrong)
    transposed = next(v for v in solutions.mistakes("shift_matrix") if v.name == "transposed_block")
    (folder / "shift_matrix.py").write_text(transposed.source())  # a student's M with its 2x2 blocks transposed
    report = grading_check.run(folder, assignment, ["qkv_arithmetic", "complexity", "shift_matrix"])
    return {t.name: t.details.get("Hint", "").splitlines() for p in report.problems for t in p.tests if not t.passed}


def hint(module, mistake):
    return next(v for v in solutions.mistakes(module) if v.name == mistake).hint


def test_attention_weights_ignoring_causal_gets_its_hint_on_its_own_test(failed):
    assert failed["attention_weights_causal_batched_and_scaled"] == [hint("qkv_arithmetic", "weights_ignore_causal")]
    assert failed["causal_batched_attention_in_single_precision"] == [hint("qkv_arithmetic", "weights_ignore_causal")]


def test_math_comb_for_the_feature_dimension_gets_one_hint_per_test(failed):
    expected = [hint("complexity", "feature_dim_distinct_monomials")]
    assert {name: hints for name, hints in failed.items() if name in {"kernel_feature_dim_small", "linear_attention_macs_worked_example",
                                                                      "crossover_length_worked_example"}} == {
        "kernel_feature_dim_small": expected, "linear_attention_macs_worked_example": expected, "crossover_length_worked_example": expected}


def test_transposed_blocks_are_not_blamed_on_a_cos_first_encoding(failed):
    hinted = {name: hints for name, hints in failed.items() if name.startswith("shift_") and hints}
    assert "shift_matrix_one_step" in hinted
    assert all(hints == [hint("shift_matrix", "transposed_block")] for hints in hinted.values()), hinted
