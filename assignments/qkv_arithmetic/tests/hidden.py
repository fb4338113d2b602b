"""Hidden tests of problem 1 (qkv_arithmetic): batches, scale, masking, ties, stability, float32, and the edges of
each rule: ties of many keys, causal masks at score magnitudes from thousands to near float32's range, lengths 1 and 7."""

import numpy as np

from autograder.testkit import Call, expect_true, problem_support, randn, tensor, test_case

support = problem_support("qkv_arithmetic")
# The worked example divided by 10: softmax is no longer one-hot here, so a missing scale or
# a softmax over the wrong axis changes the answer.
H, W_q, W_k, W_v = support.H_EXAMPLE / 10, support.W_q, support.W_k, support.W_v
Q, K, V = support.projections(H)


@test_case(points=0.5, hidden=True)
def test_qkv_batched_leading_dimensions(qkv_arithmetic):
    W = [randn(6, 5, seed=s) for s in (1, 2, 3)]
    Call(qkv_arithmetic.qkv, randn(2, 3, 7, 5, seed=0), *W).matches_reference()


@test_case(points=0.5, hidden=True)
def test_scores_scale_and_batches(qkv_arithmetic):
    Call(qkv_arithmetic.attention_scores, randn(2, 4, 6, seed=4), randn(2, 5, 6, seed=5), scale=0.125).matches_reference()


@test_case(points=0.5, hidden=True)
def test_softmax_stable_for_large_scores_and_other_axis(qkv_arithmetic):
    x = tensor([[1e4, 0.0, -1e4], [1e4, 1e4 - 1.0, 2.0], [-1e4, -1e4, -1e4]])
    got = Call(qkv_arithmetic.softmax, x).matches_reference()
    expect_true(abs(got.sum(axis=-1) - 1).max() < 1e-9, "softmax rows of large scores should sum to 1")
    Call(qkv_arithmetic.softmax, randn(3, 4, 5, seed=6, scale=3.0), dim=1).matches_reference()


@test_case(points=0.5, hidden=True)
def test_attention_weights_small_scale_with_scale(qkv_arithmetic):
    Call(qkv_arithmetic.attention_weights, Q, K, scale=0.5).matches_reference()
    Call(qkv_arithmetic.attention_weights, Q, K).matches_reference()


@test_case(points=0.5, hidden=True)
def test_causal_weights_batched(qkv_arithmetic):
    Call(qkv_arithmetic.attention_weights, randn(2, 3, 6, 4, seed=7), randn(2, 3, 6, 4, seed=8), scale=0.5, causal=True).matches_reference()


@test_case(points=1, hidden=True)
def test_softmax_attention_batched_more_keys_than_queries_then_causal(qkv_arithmetic):
    Call(qkv_arithmetic.softmax_attention, randn(2, 3, 4, seed=9), randn(2, 6, 4, seed=10), randn(2, 6, 5, seed=11), scale=0.5).matches_reference()
    Call(qkv_arithmetic.softmax_attention, randn(5, 4, seed=12), randn(5, 4, seed=13), randn(5, 3, seed=14), causal=True).matches_reference()


@test_case(points=1, hidden=True)
def test_argmax_ties_go_to_lowest_key(qkv_arithmetic):
    # Keys 1 and 3 tie for every query (and key 0 ties with key 2 for the second query).
    Q_t = tensor([[1.0, 0.0], [0.0, 1.0]])
    K_t = tensor([[0.0, 0.0], [2.0, 1.0], [0.0, 0.0], [2.0, 1.0]])
    V_t = tensor([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [4.0, 4.0]])
    Call(qkv_arithmetic.argmax_attention, Q_t, K_t, V_t).matches_reference()
    # A tie is exact equality: keys 0 and 1 tie, keys 2 and 3 tie 2**-40 above them (exact in float64), so key 2 wins;
    # a tie rule with a tolerance, or a penalty of a small multiple of the key index, picks key 0.
    Q_n, K_n = scores_as_inputs([[1.0, 1.0, 1.0 + 2.0**-40, 1.0 + 2.0**-40], [-2.0, -2.0 + 2.0**-40, -2.0, -2.0 + 2.0**-40]])
    Call(qkv_arithmetic.argmax_attention, Q_n, K_n, V_t).matches_reference()


@test_case(points=0.5, hidden=True)
def test_argmax_batched(qkv_arithmetic):
    Call(qkv_arithmetic.argmax_attention, randn(2, 3, 5, 4, seed=15), randn(2, 3, 7, 4, seed=16), randn(2, 3, 7, 6, seed=17)).matches_reference()
    # A near tie: the best key wins alone, however close the runner-up (a sharp softmax would mix the two).
    K_near = tensor([[0.5, 0.0], [1.0, 0.0], [0.999, 0.0]])
    Call(qkv_arithmetic.argmax_attention, tensor([[1.0, 0.0]]), K_near, randn(3, 2, seed=25)).matches_reference()
    # A later key better by one part in 2**40 (exact scores, batched): it wins, as the best key always does.
    S_near = [[[1.0, 1.0 + 2.0**-40, 0.5], [1000.0, 999.0, 1000.0 + 2.0**-40]], [[0.0, -1.0, 2.0**-40], [7.0, 7.0 + 2.0**-40, 7.0]]]
    Q_n, K_n = scores_as_inputs(S_near)
    Call(qkv_arithmetic.argmax_attention, Q_n, K_n, randn(2, 3, 2, seed=55)).matches_reference()


@test_case(points=0.5, hidden=True)
def test_float32_inputs(qkv_arithmetic):
    f = dict(dtype=np.float32)
    Call(qkv_arithmetic.softmax_attention, randn(3, 8, 4, seed=18, **f), randn(3, 8, 4, seed=19, **f), randn(3, 8, 2, seed=20, **f), scale=0.5, causal=True).matches_reference()
    Call(qkv_arithmetic.qkv, randn(4, 3, seed=21, **f), randn(2, 3, seed=22, **f), randn(2, 3, seed=23, **f), randn(5, 3, seed=24, **f)).matches_reference()
    # Argmax attention in float32: random scores (the best two of each query at least 0.14 apart), then exact ties
    # and a later key better by one float32 ulp (2**-23 above 1, 2**-24 above 0.5), which wins.
    Call(qkv_arithmetic.argmax_attention, randn(3, 8, 4, seed=18, **f), randn(3, 8, 4, seed=19, **f), randn(3, 8, 2, seed=20, **f)).matches_reference()
    S32 = [[1.0, 1.0 + 2.0**-23, 1.0, 1.0 + 2.0**-23], [0.5, 0.5, 0.5 + 2.0**-24, 0.5], [3.0, 3.0, 3.0, 3.0]]
    Q_32, K_32 = scores_as_inputs(S32, dtype=np.float32)
    Call(qkv_arithmetic.argmax_attention, Q_32, K_32, randn(4, 3, seed=56, **f)).matches_reference()


def scores_as_inputs(S, dtype=np.float64):
    """Q = I and K = S^T, so that Q K^T is exactly S (any leading dimensions): the test sets every score itself."""
    S = np.asarray(S, dtype=dtype)
    T_q = S.shape[-2]
    Q = np.broadcast_to(np.eye(T_q, dtype=dtype), S.shape[:-2] + (T_q, T_q))
    return tensor(Q.copy(), dtype=dtype), tensor(np.swapaxes(S, -1, -2).copy(), dtype=dtype)


def causal_scores(T, allowed, future, seed=None, step=1.0):
    """T x T scores: keys j > i score ``future``; keys j <= i score ``allowed`` plus ``step`` times a small integer k.

    With a seed, k is drawn from 0..3 (ties and a softmax that is not one-hot); without, k = (3j + i) mod 7, distinct
    within each row for T <= 7, so a large ``step`` gives one-hot weights whose value no rounding of the softmax moves.
    """
    i, j = np.indices((T, T))
    k = np.random.default_rng(seed).integers(0, 4, size=(T, T)) if seed is not None else (3 * j + i) % 7
    return np.where(j > i, float(future), allowed + step * k)


@test_case(points=1, hidden=True)
def test_argmax_ties_of_three_or_more_keys(qkv_arithmetic):
    # Ties of 3, 5 (every key), non-adjacent and negative: torch.topk(scores, 1) picks the lowest index for two tied
    # keys but not for three; an unstable descending sort loses the order of 20 tied keys.
    S = [[0, 2, 2, 2, 1], [2, 2, 2, 2, 2], [1, 3, 0, 3, 3], [-4, -4, -5, -4, -6], [7, 1, 7, 7, 7]]
    Q_t, K_t = scores_as_inputs(S)
    V_t = tensor(np.arange(15.0).reshape(5, 3))
    Call(qkv_arithmetic.argmax_attention, Q_t, K_t, V_t).matches_reference()
    # 37 keys, 20 of them tied for the best score (one query), with batch dimensions.
    keys = np.where(np.arange(37) % 9 < 5, 5.0, np.arange(37) % 4)
    K_many = tensor(np.broadcast_to(keys[:, None], (2, 37, 1)).copy())
    Call(qkv_arithmetic.argmax_attention, tensor(np.ones((2, 1, 1))), K_many, randn(2, 37, 2, seed=26)).matches_reference()
    # The same tied keys with key 30 raised by 2**-40 (exact): key 30 is the best alone and wins.
    keys_up = keys.copy()
    keys_up[30] += 2.0**-40
    Call(qkv_arithmetic.argmax_attention, tensor(np.ones((1, 1))), tensor(keys_up[:, None]), randn(37, 2, seed=57)).matches_reference()


@test_case(points=1, hidden=True)
def test_causal_weights_with_scores_in_the_thousands(qkv_arithmetic):
    # Future keys score 20000 above the allowed ones: adding -1e4 (BERT's additive mask) leaves them in front, masking after
    # the softmax leaves nothing to renormalise; allowed scores near -30000 beat a mask filled with -1e4 (GPT-2's bias).
    # Integer scores are exact in every order of computation, so the weights are compared at float64's tolerance.
    above = causal_scores(7, 3000, 23000, seed=27)
    below = causal_scores(7, -30000, -5000, seed=28)
    Q_s, K_s = scores_as_inputs(np.stack([above, below]))
    Call(qkv_arithmetic.attention_weights, Q_s, K_s, causal=True).matches_reference()
    Call(qkv_arithmetic.softmax_attention, Q_s, K_s, randn(2, 7, 3, seed=29), causal=True).matches_reference()
    Q_1, K_1 = scores_as_inputs([[4000.0]])
    Call(qkv_arithmetic.softmax_attention, Q_1, K_1, randn(1, 2, seed=30), causal=True).matches_reference()


@test_case(points=1, hidden=True)
def test_causal_attention_with_scores_near_1e10_and_float32_near_its_range(qkv_arithmetic):
    # Future keys 2**32 (4e9) above allowed ones near 2**33: an additive -1e9 leaves them in front. In float32 the
    # scores reach 2**101 (float32's largest is about 2**128); a mask of -inf or finfo(float32).min still removes them.
    # The allowed scores of a row are at least 64 apart and never tie, so the weights are one-hot: a log-sum-exp
    # softmax, whose rounding at these magnitudes is 1e-6 relative, gets them exactly.
    big = causal_scores(7, 2.0**33, 2.0**33 + 2.0**32, step=64.0)
    Q_b, K_b = scores_as_inputs(big)
    Call(qkv_arithmetic.softmax_attention, Q_b, K_b, randn(7, 2, seed=32), causal=True).matches_reference()
    huge = causal_scores(5, 2.0**100, 2.0**101, step=2.0**96)
    Q_h, K_h = scores_as_inputs(huge[None], dtype=np.float32)
    Call(qkv_arithmetic.softmax_attention, Q_h, K_h, randn(1, 5, 3, seed=34, dtype=np.float32), causal=True).matches_reference()


@test_case(points=0.5, hidden=True)
def test_lengths_one_and_seven_and_more_queries_than_keys(qkv_arithmetic):
    # One token, one feature; 7 queries over 3 keys with two leading dimensions and one value column.
    Call(qkv_arithmetic.qkv, randn(1, 1, seed=35), randn(3, 1, seed=36), randn(3, 1, seed=37), randn(1, 1, seed=38)).matches_reference()
    Q7, K3 = randn(3, 2, 7, 5, seed=39, scale=0.5), randn(3, 2, 3, 5, seed=40, scale=0.5)
    Call(qkv_arithmetic.softmax_attention, Q7, K3, randn(3, 2, 3, 1, seed=41), scale=0.25).matches_reference()
    Call(qkv_arithmetic.argmax_attention, Q7, K3[..., :1, :], randn(3, 2, 1, 4, seed=42)).matches_reference()
    Call(qkv_arithmetic.attention_weights, randn(7, 3, seed=43), randn(7, 3, seed=44), scale=0.5, causal=True).matches_reference()
    # One batch, one head, one query, one value column: results keep every axis (a bare .squeeze() drops them all).
    Q1, K1, V1 = randn(1, 1, 1, 4, seed=45), randn(1, 1, 5, 4, seed=46), randn(1, 1, 5, 1, seed=47)
    Call(qkv_arithmetic.attention_weights, Q1, K1, scale=0.5).matches_reference()
    Call(qkv_arithmetic.softmax_attention, Q1, K1, V1).matches_reference()
    Call(qkv_arithmetic.argmax_attention, Q1, K1, V1).matches_reference()
    Call(qkv_arithmetic.argmax_attention, randn(1, 3, 4, seed=48), K1[0], V1[0]).matches_reference()
    Call(qkv_arithmetic.attention_scores, Q1, K1, scale=0.5).matches_reference()
    Call(qkv_arithmetic.softmax, randn(1, 1, 1, 5, seed=49)).matches_reference()
    Call(qkv_arithmetic.qkv, randn(1, 1, 1, 4, seed=50), randn(1, 4, seed=51), randn(1, 4, seed=52), randn(1, 4, seed=53)).matches_reference()
