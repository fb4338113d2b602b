"""Public tests of problem 6 (causal_linear_attention): the worked example, small random cases, the recurrent form."""

import numpy as np

from autograder.testkit import FLOAT32, Call, Named, expect_equal, expect_true, problem_support, rand, randn, tensor, test_case

support = problem_support("causal_linear_attention")
run_recurrent = support.run_recurrent


# The worked example of the statement: with elu(x) + 1 and inputs in {0, 1}, phi(x) = x + 1.
Q_EX = tensor([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
K_EX = tensor([[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]])
V_EX = tensor([[8.0, 0.0], [0.0, 8.0], [-4.0, 0.0]])
OUT_EX = np.array([[8.0, 0.0], [5.0, 3.0], [1.0, 2.0]])


@test_case(points=0.5, hidden=False)
def test_elu_feature_map(causal_linear_attention):
    X = tensor(np.linspace(-4.0, 4.0, 24).reshape(2, 3, 4))
    got = Call(causal_linear_attention.elu_feature_map, X).matches_reference()
    expect_true(bool((got > 0).all()), "elu(x) + 1 should be positive everywhere")


@test_case(points=2, hidden=False)
def test_worked_example(causal_linear_attention):
    Call(causal_linear_attention.causal_kernel_attention, Q_EX, K_EX, V_EX).matches(OUT_EX)
    Call(causal_linear_attention.causal_linear_attention, Q_EX, K_EX, V_EX, eps=0.0).matches(OUT_EX)
    # After the first token: S_1 = phi(k_1) v_1^T and Z_1 = phi(k_1), with phi(k_1) = [2, 1].
    first = Call(causal_linear_attention.recurrent_step, None, Q_EX[0], K_EX[0], V_EX[0], eps=0.0)
    first.matches((np.array([8.0, 0.0]), (np.array([[16.0, 0.0], [8.0, 0.0]]), np.array([2.0, 1.0]))))


@test_case(points=0.5, hidden=False)
def test_kernel_attention_small(causal_linear_attention):
    Call(causal_linear_attention.causal_kernel_attention, randn(5, 3, seed=1), randn(5, 3, seed=2), randn(5, 2, seed=3)).matches_reference()


@test_case(points=2, hidden=False)
def test_linear_equals_quadratic_form(causal_linear_attention):
    # 70 tokens: more than one chunk for a chunked solution; C = 3 differs from M = 2.
    Q, K, V = randn(70, 3, seed=4), randn(70, 3, seed=5), randn(70, 2, seed=6)
    quadratic = Call(causal_linear_attention.causal_kernel_attention, Q, K, V).reference()
    Call(causal_linear_attention.causal_linear_attention, Q, K, V, eps=0.0).matches(quadratic)
    Call(causal_linear_attention.causal_linear_attention, Q, K, V).matches_reference()


@test_case(points=2, hidden=False)
def test_causality(causal_linear_attention):
    Q, K, V = randn(12, 3, seed=7), randn(12, 3, seed=8), randn(12, 2, seed=9)
    t = 7
    Q2, K2, V2 = (np.concatenate([X[:t], 3 * randn(*X[t:].shape, seed=10 + s)]) for s, X in enumerate((Q, K, V)))
    for func in (causal_linear_attention.causal_linear_attention, causal_linear_attention.causal_kernel_attention):
        before, after = Call(func, Q, K, V), Call(func, Q2, K2, V2)
        a, b = before.result(), after.result()
        expect_true(isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape == (12, 2),
                    f"{before.shown} should return a tensor of shape (12, 2)")
        if np.isfinite(a).all() and np.isfinite(b).all():  # non-finite outputs fail the comparison with the reference below
            scale = float(np.abs(a[:t]).max())
            expect_true(np.allclose(a[:t], b[:t], rtol=1e-9, atol=1e-9 * scale),
                        f"{func.func}: changing only the tokens at positions {t} and later changed the outputs at positions before {t}; "
                        "output i may depend only on the tokens j <= i")
        before.matches_reference()
        after.matches_reference()


@test_case(points=2, hidden=False)
def test_recurrent_token_by_token(causal_linear_attention):
    Q, K, V = randn(6, 3, seed=20), randn(6, 3, seed=21), randn(6, 2, seed=22)
    rows = run_recurrent(causal_linear_attention, Q, K, V)
    parallel = Call(causal_linear_attention.causal_linear_attention, Q, K, V).reference()
    expect_equal(rows, parallel, called="recurrent_step fed the 6 tokens in order, compared with causal_linear_attention")
    # Two sequences decoded together, one token of each in turn: each step continues from the state it is given.
    first, second = ((randn(4, 3, seed=s), randn(4, 3, seed=s + 1), randn(4, 2, seed=s + 2)) for s in (23, 26))
    support.run_alternately(causal_linear_attention, [first, second])
    # One step from a state (S, Z) of earlier tokens that this test never fed.
    S, Z = randn(3, 2, seed=41), 1 + 2 * rand(3, seed=42)
    Call(causal_linear_attention.recurrent_step, (S, Z), randn(3, seed=43), randn(3, seed=44), randn(2, seed=45)).matches_reference()


@test_case(points=1, hidden=False)
def test_another_feature_map_batched_and_in_single_precision(causal_linear_attention):
    # feature_map is any function of the last dimension; it may change the feature count (here C -> C + 1).
    Q, K, V = randn(2, 5, 3, seed=30, scale=0.5), randn(2, 5, 3, seed=31, scale=0.5), randn(2, 5, 2, seed=32)
    square = Named("square_plus_one")
    quadratic = Call(causal_linear_attention.causal_kernel_attention, Q, K, V, feature_map=square)
    quadratic.matches_reference()
    Call(causal_linear_attention.causal_linear_attention, Q, K, V, feature_map=square, eps=0.0).matches(quadratic.reference())
    f32 = dict(dtype=np.float32)
    Q32, K32, V32 = randn(6, 4, seed=33, **f32), randn(6, 4, seed=34, **f32), randn(6, 3, seed=35, **f32)
    Call(causal_linear_attention.causal_kernel_attention, Q32, K32, V32).matches_reference()
    Call(causal_linear_attention.causal_linear_attention, Q32, K32, V32).matches_reference()
    # recurrent_step in float32: from None, its state (S, Z) is float32 too, and it continues from a float32 state.
    rows = run_recurrent(causal_linear_attention, Q32, K32, V32)
    expect_equal(rows, Call(causal_linear_attention.causal_linear_attention, Q32, K32, V32).reference(), FLOAT32,
                 called="recurrent_step fed the 6 float32 tokens in order, compared with causal_linear_attention")
    Call(causal_linear_attention.recurrent_step, (randn(4, 3, seed=39, **f32), 1 + 2 * rand(4, seed=40, dtype=np.float32)),
         Q32[0], K32[0], V32[0]).matches_reference()
    # One step for a batch of 2 x 2 sequences: q, k (2, 2, C), v (2, 2, M), starting from no state.
    Call(causal_linear_attention.recurrent_step, None, randn(2, 2, 3, seed=36), randn(2, 2, 3, seed=37),
         randn(2, 2, 2, seed=38)).matches_reference()


@test_case(points=0.5, hidden=False)
def test_cost_linear_in_tokens_at_a_modest_size(causal_linear_attention):
    # torch's work at 256 and 1024 tokens must grow as N (testkit/scaling.py); the hidden tests add a long sequence
    # under a memory cap, and the CPU time of code outside torch.
    problem_support("causal_linear_attention").expect_linear_cost(causal_linear_attention, 60, long=False)
