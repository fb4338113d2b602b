"""Hidden tests of problem 3 (complexity).

Where the sizes allow, the expected counts are measured, not recomputed from a formula: the test
runs the attention computation on random tensors of the given sizes and counts the
multiply-accumulates of the matrix products it performs (``measured_macs``, which agrees with
torch's ``FlopCounterMode`` halved). Sizes too large to run are compared with the reference.
"""

import math

import numpy as np

from autograder.testkit import FLOAT64, Call, CheckFailure, expect_equal, measured_macs, problem_support, rand, test_case

expect_cost_dict = problem_support("complexity").expect_cost_dict


def softmax_attention(Q, K, V):
    scores = Q @ K.T / math.sqrt(Q.shape[-1])
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return weights / weights.sum(axis=-1, keepdims=True) @ V


def measured_softmax_attention(n_q, n_k, d_k, d_v, seed=0):
    Q, K, V = rand(n_q, d_k, seed=seed), rand(n_k, d_k, seed=seed + 1), rand(n_k, d_v, seed=seed + 2)
    return measured_macs(lambda: softmax_attention(Q, K, V))


def polynomial_features(X, degree):
    """phi(x) = x outer x outer ... (degree times), flattened: phi(q) . phi(k) = (q . k) ** degree."""
    out = np.ones((X.shape[0], 1), dtype=X.dtype)
    for _ in range(degree):
        out = (out[:, :, None] * X[:, None, :]).reshape(X.shape[0], -1)
    return out


def measured_linear_attention(N, D, M, degree, seed=0):
    Q, K, V = rand(N, D, seed=seed), rand(N, D, seed=seed + 1), rand(N, M, seed=seed + 2)
    # Feature maps are built outside the counter: only matrix products are priced.
    phi_Q, phi_K = polynomial_features(Q, degree), polynomial_features(K, degree)

    def compute():
        numerator = phi_Q @ (phi_K.T @ V)
        # A column, not a 1-D vector: FlopCounterMode has no rule for torch.mv and would count 0 for it.
        denominator = phi_Q @ phi_K.sum(axis=0)[:, None]
        return numerator / denominator

    return measured_macs(compute)


def measured_crossover(D, M, degree, limit=200):
    """The first N at which the measured linear form costs strictly less than softmax attention."""
    for N in range(1, limit):
        if measured_linear_attention(N, D, M, degree) < measured_softmax_attention(N, N, D, M):
            return N
    raise RuntimeError(f"no crossover below {limit} for D={D}, M={M}, degree={degree}")


def expect_count(call, expected):
    """Exact int comparison that keeps the expected value hidden but still names a known mistake."""
    got = call.result()
    try:
        expect_equal(got, expected, called=call.shown)
    except CheckFailure as failure:
        raise failure.with_hints(call.hints(got, expected, FLOAT64)) from None


@test_case(points=1, hidden=True)
def test_softmax_attention_macs_match_profiler(complexity):
    for n_q, n_k, d_k, d_v in [(5, 7, 3, 4), (8, 3, 6, 2), (1, 9, 4, 4), (6, 6, 2, 7)]:
        expect_count(Call(complexity.softmax_attention_macs, n_q, n_k, d_k, d_v), measured_softmax_attention(n_q, n_k, d_k, d_v))


@test_case(points=1, hidden=True)
def test_transformer_attention_macs_match_profiler(complexity):
    for M, N, k in [(7, 4, 3), (3, 9, 5)]:
        encoder, decoder = rand(M, k, seed=M), rand(N, k, seed=N + 100)
        measured = {
            "encoder_self": measured_macs(lambda: softmax_attention(encoder, encoder, encoder)),
            "cross": measured_macs(lambda: softmax_attention(decoder, encoder, encoder)),
            "decoder_self": measured_macs(lambda: softmax_attention(decoder, decoder, decoder)),
        }
        expect_cost_dict(Call(complexity.transformer_attention_macs, M, N, k), measured)


@test_case(points=1, hidden=True)
def test_kernel_feature_dim_matches_explicit_feature_map(complexity):
    for D, degree in [(3, 2), (2, 3), (4, 1), (5, 3), (2, 5)]:
        expect_count(Call(complexity.kernel_feature_dim, D, degree), polynomial_features(rand(1, D, seed=D), degree).shape[-1])


@test_case(points=1, hidden=True)
def test_linear_attention_macs_match_profiler(complexity):
    for N, D, M, degree in [(7, 3, 5, 2), (6, 2, 3, 3), (5, 4, 2, 1), (4, 3, 1, 2)]:
        expect_count(Call(complexity.linear_attention_macs, N, D, M, degree=degree), measured_linear_attention(N, D, M, degree))
    # Without `degree`, the handout's default of 2.
    expect_count(Call(complexity.linear_attention_macs, 5, 3, 4), measured_linear_attention(5, 3, 4, 2))


@test_case(points=1, hidden=True)
def test_crossover_length_matches_profiler(complexity):
    for D, M, degree in [(5, 2, 1), (1, 1, 2), (2, 3, 3), (3, 6, 2)]:
        expect_count(Call(complexity.crossover_length, D, M, degree=degree), measured_crossover(D, M, degree))
    # Without `degree`, the handout's default of 2.
    expect_count(Call(complexity.crossover_length, 2, 5), measured_crossover(2, 5, 2))


@test_case(points=1, hidden=True)
def test_crossover_length_when_costs_tie(complexity):
    # At N = crossover - 1 both costs are equal here, and equal is not cheaper.
    for D, M, degree in [(2, 2, 2), (4, 4, 2), (3, 2, 2), (2, 1, 1)]:
        expect_count(Call(complexity.crossover_length, D, M, degree=degree), measured_crossover(D, M, degree))


@test_case(points=1, hidden=True)
def test_crossover_length_exact_for_large_dimensions(complexity):
    # Chosen so that F*(2M+1)/(D+M) lies within 3e-11 of an integer (just below it,
    # then just above it): closer than a float quotient can tell apart.
    for D, M in [(131073, 34360000511), (131073, 34360000513)]:
        call = Call(complexity.crossover_length, D, M, degree=1)
        expect_count(call, call.reference())


@test_case(points=1, hidden=True)
def test_relative_position_bias_params_more_sizes_and_clipping_edges(complexity):
    cases = [((2, 1), {}), ((7, 12), {}), ((100, 8), {}), ((1, 6), {}), ((12, 1), {"max_distance": None}),
             ((10, 4), {"max_distance": 20}), ((10, 4), {"max_distance": 9}), ((10, 4), {"max_distance": 0}),
             ((1, 6), {"max_distance": 3}), ((12, 5), {"max_distance": 4}),
             # Long contexts without max_distance: nothing is clipped, however far apart two tokens are.
             ((300, 4), {}), ((2048, 12), {})]
    for args, kwargs in cases:
        call = Call(complexity.relative_position_bias_params, *args, **kwargs)
        expect_count(call, call.reference())


@test_case(points=1, hidden=True)
def test_costs_exact_for_large_sizes(complexity):
    # Between 2**53 and 2**63: exact in 64-bit integers, not in floats (3**39 has more than 53 significant bits; 1000**6
    # happens to be exact in a float). Beyond 2**63 (3**40, products near 1e20): only Python's integers are exact, a
    # numpy or torch int64 wraps around silently.
    calls = [
        Call(complexity.softmax_attention_macs, 3_000_017, 2_999_999, 1_000, 999),
        Call(complexity.linear_attention_macs, 1_000_003, 1_000, 5_001, degree=2),
        Call(complexity.kernel_feature_dim, 1_000, 6),
        Call(complexity.kernel_feature_dim, 3, 39),
        Call(complexity.kernel_feature_dim, 3, 40),
        Call(complexity.softmax_attention_macs, 10_000_019, 10_000_079, 100_003, 100_007),
        Call(complexity.linear_attention_macs, 1_000_003, 3, 1_000_007, degree=30),
        # A crossover at N = 3 whose costs pass 2**63 (a float quotient rounds 3 * (D + 5) / (D + 6) up to 3.0).
        Call(complexity.crossover_length, 2**63 + 5, 1, degree=1),
        Call(complexity.relative_position_bias_params, 2**61 + 5, 12),
        Call(complexity.relative_position_bias_params, 2**62 + 5, 12, max_distance=2**61 + 3),
    ]
    for call in calls:
        expect_count(call, call.reference())
    for sizes in [(1_000_000, 999_983, 5_001), (10_000_019, 10_000_079, 100_003)]:
        call = Call(complexity.transformer_attention_macs, *sizes)
        expect_cost_dict(call, call.reference())
