"""Public tests of problem 1 (qkv_arithmetic): shapes, the worked example of the notes, and every option graded: scale,
causal masking, batches of heads, softmax over another dimension, float32 inputs (softmax and argmax attention)."""

import numpy as np

from autograder.testkit import Call, expect_equal, problem_support, randn, tensor, test_case

support = problem_support("qkv_arithmetic")
# The worked example: three tokens h1, h2, h3 as rows, and the three weight matrices.
H, W_q, W_k, W_v = support.H_EXAMPLE, support.W_q, support.W_k, support.W_v
Q, K, V = support.projections(H)


@test_case(points=1, hidden=False)
def test_qkv_worked_example(qkv_arithmetic):
    Call(qkv_arithmetic.qkv, H, W_q, W_k, W_v).matches_reference()


@test_case(points=0.5, hidden=False)
def test_qkv_shapes_with_d_out_different_from_d_in(qkv_arithmetic):
    H_wide = randn(5, 4, seed=1)
    W = [randn(3, 4, seed=s) for s in (2, 3, 4)]
    Call(qkv_arithmetic.qkv, H_wide, *W).matches_reference()


@test_case(points=1, hidden=False)
def test_scores_worked_example(qkv_arithmetic):
    call = Call(qkv_arithmetic.attention_scores, Q, K)
    got = call.matches_reference()
    expect_equal(got[1], np.array([1054.0, 852.0, -396.0]), called=call.shown + "[1]  (the scores of query 2)")


@test_case(points=0.5, hidden=False)
def test_softmax_small_vector(qkv_arithmetic):
    Call(qkv_arithmetic.softmax, tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])).matches_reference()


@test_case(points=0.5, hidden=False)
def test_softmax_attention_worked_example_scaled_down(qkv_arithmetic):
    # At the original scale softmax saturates to one-hot; a tenth of it keeps the weights informative.
    Call(qkv_arithmetic.softmax_attention, Q / 10, K / 10, V, scale=0.5).matches_reference()


@test_case(points=1, hidden=False)
def test_argmax_attention_worked_example(qkv_arithmetic):
    call = Call(qkv_arithmetic.argmax_attention, Q, K, V)
    got = call.matches_reference()
    expect_equal(got[1], np.array([23.0, 46.0]), called=call.shown + "[1]  (the output of query 2)")


@test_case(points=0.5, hidden=False)
def test_scores_and_softmax_batched_with_scale_and_dim(qkv_arithmetic):
    Call(qkv_arithmetic.attention_scores, randn(2, 3, 4, seed=5), randn(2, 5, 4, seed=6), scale=0.25).matches_reference()
    Call(qkv_arithmetic.softmax, randn(2, 3, 4, seed=7, scale=2.0), dim=1).matches_reference()


@test_case(points=0.5, hidden=False)
def test_attention_weights_causal_batched_and_scaled(qkv_arithmetic):
    # Query i gives zero weight to every key j > i; two batches of two heads, four tokens.
    Call(qkv_arithmetic.attention_weights, randn(2, 2, 4, 3, seed=8), randn(2, 2, 4, 3, seed=9), scale=0.5, causal=True).matches_reference()
    Call(qkv_arithmetic.attention_weights, randn(3, 3, seed=10), randn(5, 3, seed=11)).matches_reference()


@test_case(points=0.5, hidden=False)
def test_causal_batched_attention_in_single_precision(qkv_arithmetic):
    f32 = dict(dtype=np.float32)
    W32 = [randn(3, 4, seed=s, **f32) for s in (12, 13, 14)]
    Call(qkv_arithmetic.qkv, randn(2, 5, 4, seed=15, **f32), *W32).matches_reference()
    Q32, K32, V32 = randn(2, 5, 3, seed=16, **f32), randn(2, 5, 3, seed=17, **f32), randn(2, 5, 2, seed=18, **f32)
    Call(qkv_arithmetic.softmax_attention, Q32, K32, V32, scale=0.5, causal=True).matches_reference()
    # Argmax attention on the first batch of the same float32 tensors (the best two scores of each query are at least
    # 0.09 apart); batches of argmax are graded by the hidden tests only (tests/test_public_coverage.py says why).
    Call(qkv_arithmetic.argmax_attention, Q32[0], K32[0], V32[0]).matches_reference()
