"""Hidden tests of problem 6 (causal_linear_attention): batches, C != M, eps, custom maps, N = 1, a long sequence."""

import numpy as np

from autograder.testkit import Call, Named, expect_equal, expect_true, fail, problem_support, randn, tensor, test_case

OK_FORMAT = False
name = "causal_linear_attention_hidden"

run_recurrent = problem_support("causal_linear_attention").run_recurrent


def check_recurrent_equals_parallel(module, Q, K, V, **kwargs):
    rows = run_recurrent(module, Q, K, V, **kwargs)
    parallel = Call(module.causal_linear_attention, Q, K, V, **kwargs).reference()
    expect_equal(rows, parallel, called=f"recurrent_step fed {Q.shape[-2]} tokens in order, compared with causal_linear_attention")


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


# Linear time and memory, shown with little work (sandbox/worker/metering.py counts what a call costs where it runs):
# torch's work at N and 4 N (elements written and reduced, multiply-accumulates) must grow as N, not N^2, and a call at
# LONG_N tokens may add at most LONG_MEMORY_MB of memory, which an N x N float64 matrix (512 MiB) cannot fit.
# Measured (in-process, one thread): the reference, every fair variant and the N x N form grow 3.99 to 4.02 times in work
# from 512 to 2048 tokens, a loop that re-sums all earlier keys for every query 15.8 times.
WORK_SIZES = (256, 1024)
LONG_N, LONG_MEMORY_MB = 8192, 256
# 4 times the tokens may cost at most 8 times the work (N^1.5). Below WORK_FLOOR elements per token torch did almost
# nothing (numpy code): then only the CPU time below can tell.
WORK_GROWTH_LIMIT, WORK_FLOOR = 8.0, 100
# Work outside torch is judged by the CPU time of the process that ran the call, from 1024 tokens (counted, which only
# slows torch's operations) to 8192: above CPU_FLOOR seconds it may grow at most 8^1.5 times. Measured in the sandbox:
# a quadratic numpy loop grew 39.5 times (0.02 s -> 0.62 s); the fair variants stay below 0.1 s at 8192 tokens, except
# the per-token loop (0.6 s), whose 1024 tokens, counted, take longer.
CPU_GROWTH_LIMIT, CPU_FLOOR = 8**1.5, 0.25


def long_sequence_inputs(n, seed):
    # Two feature columns and 64 value columns make C + M large for a small C x M: a loop that re-sums all earlier keys
    # for each query pays N^2 (C + M) / 2, the linear forms N x C x M.
    return randn(n, 2, seed=seed), randn(n, 2, seed=seed + 1), randn(n, 64, seed=seed + 2)


def linear_cost_failure(n, exc):
    room = f", more than the {LONG_MEMORY_MB} MB this call may use" if n == LONG_N else ""
    fail(f"{exc}\nWith N = {n} tokens, causal_linear_attention must use time and memory linear in N: it may never build an "
         f"N x N matrix (an N x N float64 matrix would need {n * n * 8 >> 20} MiB here{room}), nor sum over all earlier keys "
         "for every query.")


@test_case(points=3, hidden=True)
def test_long_sequence_in_linear_memory(causal_linear_attention):
    f = causal_linear_attention.causal_linear_attention
    sized = {n: Call(f, *long_sequence_inputs(n, seed=28)) for n in (*WORK_SIZES, LONG_N)}
    costs = {}
    for n, call in sized.items():
        try:
            costs[n] = call.cost(work=n in WORK_SIZES, memory_mb=LONG_MEMORY_MB if n == LONG_N else None)
        except AssertionError as exc:
            linear_cost_failure(n, exc)
            return
    small, large = WORK_SIZES
    growth = costs[large]["work"] / max(costs[small]["work"], 1)
    if costs[large]["work"] > WORK_FLOOR * large:
        expect_true(growth <= WORK_GROWTH_LIMIT,
                    f"with {large // small} times the tokens ({small} -> {large}), causal_linear_attention did {growth:.1f} times the work in "
                    f"torch (elements computed and multiply-accumulates: {costs[small]['work']:,} -> {costs[large]['work']:,}); "
                    f"time linear in N allows about 4 (accepted up to {WORK_GROWTH_LIMIT:g}): it may not sum over all earlier keys "
                    "for every query; carry the running sums S_i and Z_i from one token to the next.", called=sized[large].shown)
    cpu_growth = costs[LONG_N]["cpu_seconds"] / max(costs[large]["cpu_seconds"], 1e-3)
    expect_true(costs[LONG_N]["cpu_seconds"] <= CPU_FLOOR or cpu_growth <= CPU_GROWTH_LIMIT,
                f"with {LONG_N // large} times the tokens ({large} -> {LONG_N}), causal_linear_attention took {cpu_growth:.1f} times "
                f"the CPU time ({costs[large]['cpu_seconds']:.2f} s -> {costs[LONG_N]['cpu_seconds']:.2f} s); time linear in N "
                f"allows about {LONG_N // large} (accepted up to {CPU_GROWTH_LIMIT:.0f}): it may not sum over all earlier keys for "
                "every query.", called=sized[LONG_N].shown)
    # No mistake's output is recorded for inputs this large (hints compare values); the messages above say enough.
    sized[LONG_N].matches(sized[LONG_N].reference(), hints=False)
