"""Hidden tests of problem 6 (causal_linear_attention): batches, C != M, eps, custom maps, axes of size 1, sequences decoded together, float32 steps, a long sequence."""

import numpy as np

from autograder.testkit import FLOAT32, FLOAT64, Call, Named, expect_equal, problem_support, rand, randn, tensor, test_case

support = problem_support("causal_linear_attention")
run_recurrent = support.run_recurrent


def check_recurrent_equals_parallel(module, Q, K, V, tol=FLOAT64, **kwargs):
    rows = run_recurrent(module, Q, K, V, **kwargs)
    parallel = Call(module.causal_linear_attention, Q, K, V, **kwargs).reference()
    expect_equal(rows, parallel, tol, called=f"recurrent_step fed {Q.shape[-2]} tokens in order, compared with causal_linear_attention")


@test_case(points=2, hidden=True)
def test_batch_and_head_dimensions_with_c_not_m(causal_linear_attention):
    # A transposed outer product (v k^T for k v^T) can only go unnoticed when C == M.
    Q, K, V = randn(2, 3, 40, 5, seed=1), randn(2, 3, 40, 5, seed=2), randn(2, 3, 40, 3, seed=3)
    quadratic = Call(causal_linear_attention.causal_kernel_attention, Q, K, V)
    quadratic.matches_reference()
    Call(causal_linear_attention.causal_linear_attention, Q, K, V, eps=0.0).matches(quadratic.reference())
    Call(causal_linear_attention.causal_linear_attention, Q, K, V).matches_reference()


@test_case(points=2, hidden=True)
def test_recurrent_batched_and_custom_map(causal_linear_attention):
    check_recurrent_equals_parallel(causal_linear_attention, randn(2, 3, 5, 4, seed=4), randn(2, 3, 5, 4, seed=5), randn(2, 3, 5, 3, seed=6))
    # Three batches of sequences decoded together, one token of each in turn, each step from its own sequence's state;
    # then one step from a state (S, Z) this test never fed.
    support.run_alternately(causal_linear_attention, [(randn(2, 3, 4, 4, seed=40 + 3 * b), randn(2, 3, 4, 4, seed=41 + 3 * b),
                                                       randn(2, 3, 4, 3, seed=42 + 3 * b)) for b in range(3)])
    state = (randn(2, 3, 4, 3, seed=49), 1 + 2 * rand(2, 3, 4, seed=50))
    Call(causal_linear_attention.recurrent_step, state, randn(2, 3, 4, seed=51), randn(2, 3, 4, seed=52),
         randn(2, 3, 3, seed=53)).matches_reference()
    # square_plus_one has C + 1 features, so S is (..., C + 1, M).
    check_recurrent_equals_parallel(causal_linear_attention, randn(2, 4, 2, seed=7), randn(2, 4, 2, seed=8), randn(2, 4, 5, seed=9),
                                    feature_map=Named("square_plus_one"))


@test_case(points=2, hidden=True)
def test_eps_keeps_zero_denominators_finite(causal_linear_attention):
    # With relu features, key 0 and query 2 have all-negative entries: phi(k_0) = 0 makes Z_0 = 0,
    # and phi(q_2) = 0 makes the denominator of row 2 zero; eps turns both 0/0 into 0.
    Q, K, V = randn(6, 3, seed=10), randn(6, 3, seed=11), randn(6, 2, seed=12)
    Q[2] = tensor([-1.0, -0.5, -2.0])
    K[0] = tensor([-1.0, -1.0, -0.3])
    Call(causal_linear_attention.causal_linear_attention, Q, K, V, feature_map=Named("relu")).matches_reference()
    check_recurrent_equals_parallel(causal_linear_attention, Q[:3], K[:3], V[:3], feature_map=Named("relu"))


@test_case(points=1, hidden=True)
def test_large_eps(causal_linear_attention):
    Q, K, V = randn(10, 3, seed=13), randn(10, 3, seed=14), randn(10, 4, seed=15)
    Call(causal_linear_attention.causal_linear_attention, Q, K, V, eps=0.5).matches_reference()
    check_recurrent_equals_parallel(causal_linear_attention, Q[:3], K[:3], V[:3], eps=0.5)


@test_case(points=1, hidden=True)
def test_single_token(causal_linear_attention):
    Q, K, V = randn(2, 1, 3, seed=16), randn(2, 1, 3, seed=17), randn(2, 1, 2, seed=18)
    Call(causal_linear_attention.causal_kernel_attention, Q, K, V).matches_reference()
    Call(causal_linear_attention.causal_linear_attention, Q, K, V).matches_reference()
    Call(causal_linear_attention.causal_linear_attention, Q[0], K[0], V[0]).matches_reference()
    Call(causal_linear_attention.recurrent_step, None, Q[:, 0], K[:, 0], V[:, 0]).matches_reference()
    # One batch, one head, one value column: results keep every axis (a bare .squeeze() drops them).
    Q1, K1, V1 = randn(1, 1, 4, 3, seed=31), randn(1, 1, 4, 3, seed=32), randn(1, 1, 4, 1, seed=33)
    Call(causal_linear_attention.causal_kernel_attention, Q1, K1, V1).matches_reference()
    Call(causal_linear_attention.causal_linear_attention, Q1, K1, V1).matches_reference()
    check_recurrent_equals_parallel(causal_linear_attention, Q1, K1, V1)
    Call(causal_linear_attention.recurrent_step, None, Q1[0, :, 0], K1[0, :, 0], randn(1, 2, seed=34)).matches_reference()


@test_case(points=2, hidden=True)
def test_custom_feature_maps(causal_linear_attention):
    Q, K, V = randn(2, 20, 3, seed=19, scale=0.5), randn(2, 20, 3, seed=20, scale=0.5), randn(2, 20, 4, seed=21)
    for feature_map in ("softplus", "exp", "square_plus_one"):
        quadratic = Call(causal_linear_attention.causal_kernel_attention, Q, K, V, feature_map=Named(feature_map))
        quadratic.matches_reference()
        Call(causal_linear_attention.causal_linear_attention, Q, K, V, feature_map=Named(feature_map), eps=0.0).matches(quadratic.reference())
        Call(causal_linear_attention.causal_linear_attention, Q, K, V, feature_map=Named(feature_map)).matches_reference()


@test_case(points=1, hidden=True)
def test_kernel_attention_batched_custom_map(causal_linear_attention):
    Q, K, V = randn(2, 3, 9, 4, seed=22), randn(2, 3, 9, 4, seed=23), randn(2, 3, 9, 2, seed=24)
    Call(causal_linear_attention.causal_kernel_attention, Q, K, V, feature_map=Named("softplus")).matches_reference()


@test_case(points=1, hidden=True)
def test_float32(causal_linear_attention):
    # Measured: float32 prefix sums over 2048 tokens stay within 1e-7 of float64 (relative to the
    # largest output) for the reference, the cumsum form and a token loop: far inside the float32 tolerance.
    f32 = dict(dtype=np.float32)
    Q, K, V = randn(2, 1024, 8, seed=25, **f32), randn(2, 1024, 8, seed=26, **f32), randn(2, 1024, 8, seed=27, **f32)
    Call(causal_linear_attention.causal_linear_attention, Q, K, V).matches_reference()
    Call(causal_linear_attention.causal_kernel_attention, Q[:, :50], K[:, :50], V[:, :50]).matches_reference()
    # recurrent_step in float32: from None (its state then float32 too), and from a given float32 state.
    check_recurrent_equals_parallel(causal_linear_attention, Q[:, :4], K[:, :4], V[:, :4], tol=FLOAT32)
    state = (randn(2, 8, 8, seed=54, **f32), 1 + 2 * rand(2, 8, seed=55, dtype=np.float32))
    Call(causal_linear_attention.recurrent_step, state, Q[:, 4], K[:, 4], V[:, 4]).matches_reference()


@test_case(points=2.5, hidden=True)
def test_long_sequence_in_linear_memory(causal_linear_attention):
    # Linear time and memory, shown with little work: testkit/scaling.py says how, and what was measured.
    problem_support("causal_linear_attention").expect_linear_cost(causal_linear_attention, 28)
