"""Hidden tests of problem 1 (qkv_arithmetic): batches, scale, masking, ties, stability, float32."""

import numpy as np

from autograder.testkit import Call, expect_true, problem_support, randn, tensor, test_case

OK_FORMAT = False
name = "qkv_arithmetic_hidden"

support = problem_support("qkv_arithmetic")
# The worked example divided by 10: softmax is no longer one-hot here, so a missing scale or
# a softmax over the wrong axis changes the answer.
H, W_q, W_k, W_v = support.H_EXAMPLE / 10, support.W_q, support.W_k, support.W_v
Q, K, V = support.projections(H)


@test_case(points=1, hidden=True)
def test_qkv_batched_leading_dimensions(qkv_arithmetic):
    W = [randn(6, 5, seed=s) for s in (1, 2, 3)]
    Call(qkv_arithmetic.qkv, randn(2, 3, 7, 5, seed=0), *W).matches_reference()


@test_case(points=1, hidden=True)
def test_scores_scale_and_batches(qkv_arithmetic):
    Call(qkv_arithmetic.attention_scores, randn(2, 4, 6, seed=4), randn(2, 5, 6, seed=5), scale=0.125).matches_reference()


@test_case(points=1, hidden=True)
def test_softmax_stable_for_large_scores_and_other_axis(qkv_arithmetic):
    x = tensor([[1e4, 0.0, -1e4], [1e4, 1e4 - 1.0, 2.0], [-1e4, -1e4, -1e4]])
    got = Call(qkv_arithmetic.softmax, x).matches_reference()
    expect_true(abs(got.sum(axis=-1) - 1).max() < 1e-9, "softmax rows of large scores should sum to 1")
    Call(qkv_arithmetic.softmax, randn(3, 4, 5, seed=6, scale=3.0), dim=1).matches_reference()


@test_case(points=1, hidden=True)
def test_attention_weights_small_scale_with_scale(qkv_arithmetic):
    Call(qkv_arithmetic.attention_weights, Q, K, scale=0.5).matches_reference()
    Call(qkv_arithmetic.attention_weights, Q, K).matches_reference()


@test_case(points=1, hidden=True)
def test_causal_weights_batched(qkv_arithmetic):
    Call(qkv_arithmetic.attention_weights, randn(2, 3, 6, 4, seed=7), randn(2, 3, 6, 4, seed=8), scale=0.5, causal=True).matches_reference()


@test_case(points=1, hidden=True)
def test_softmax_attention_batched_more_keys_than_queries(qkv_arithmetic):
    Call(qkv_arithmetic.softmax_attention, randn(2, 3, 4, seed=9), randn(2, 6, 4, seed=10), randn(2, 6, 5, seed=11), scale=0.5).matches_reference()
    Call(qkv_arithmetic.softmax_attention, randn(5, 4, seed=12), randn(5, 4, seed=13), randn(5, 3, seed=14), causal=True).matches_reference()


@test_case(points=1, hidden=True)
def test_argmax_ties_go_to_lowest_key(qkv_arithmetic):
    # Keys 1 and 3 tie for every query (and key 0 ties with key 2 for the second query).
    Q_t = tensor([[1.0, 0.0], [0.0, 1.0]])
    K_t = tensor([[0.0, 0.0], [2.0, 1.0], [0.0, 0.0], [2.0, 1.0]])
    V_t = tensor([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [4.0, 4.0]])
    Call(qkv_arithmetic.argmax_attention, Q_t, K_t, V_t).matches_reference()


@test_case(points=1, hidden=True)
def test_argmax_batched(qkv_arithmetic):
    Call(qkv_arithmetic.argmax_attention, randn(2, 3, 5, 4, seed=15), randn(2, 3, 7, 4, seed=16), randn(2, 3, 7, 6, seed=17)).matches_reference()
    # A near tie: the best key wins alone, however close the runner-up (a sharp softmax would mix the two).
    K_near = tensor([[0.5, 0.0], [1.0, 0.0], [0.999, 0.0]])
    Call(qkv_arithmetic.argmax_attention, tensor([[1.0, 0.0]]), K_near, randn(3, 2, seed=25)).matches_reference()


@test_case(points=1, hidden=True)
def test_float32_inputs(qkv_arithmetic):
    f = dict(dtype=np.float32)
    Call(qkv_arithmetic.softmax_attention, randn(3, 8, 4, seed=18, **f), randn(3, 8, 4, seed=19, **f), randn(3, 8, 2, seed=20, **f), scale=0.5, causal=True).matches_reference()
    Call(qkv_arithmetic.qkv, randn(4, 3, seed=21, **f), randn(2, 3, seed=22, **f), randn(2, 3, seed=23, **f), randn(5, 3, seed=24, **f)).matches_reference()
