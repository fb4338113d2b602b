"""Hidden tests of problem 4 (shift_matrix): shapes, bases, long sequences, float32, every kind of delta."""

import numpy as np

from autograder.testkit import FLOAT64, Call, Named, difference, expect_equal, fail, problem_support, revealing, test_case

support = problem_support("shift_matrix")
array_of_shape, expect_value_error = support.array_of_shape, support.expect_value_error
expect_positions_told_apart, expect_moves_position_zero = support.expect_positions_told_apart, support.expect_moves_position_zero

FLOAT32 = Named("torch.float32")
EPS32 = 2.0**-23


def expect_shifts(M, P, delta, called):
    """M @ p_t must equal p_(t+delta) for every t whose shifted row is also in P."""
    T = P.shape[0]
    lo, hi = max(0, -delta), min(T, T - delta)
    diff = difference(P[lo:hi] @ M.T, P[lo + delta:hi + delta], FLOAT64)
    if diff:
        fail(f"M @ p_t should equal p_(t{delta:+d}) for t = {lo}..{hi - 1}, but it does not (row r below is t = {lo} + r): {diff}", called=called)


def expect_rows_close(got, expected, atol, called):
    """Row r may differ by at most atol[r]: float32 angles lose accuracy in proportion to their size."""
    err = np.abs(got - expected).max(axis=1)
    bad = np.flatnonzero(~(err <= atol))
    if bad.size:
        r = bad[0]
        shown = f"error {err[r]:.3g}, " if revealing() else ""  # an error beside the student's value gives the expected away
        fail(f"{bad.size} of {len(err)} rows differ by more than float32 accuracy allows; first at row {r} "
             f"({shown}allowed {atol[r]:.3g})", called=called)


@test_case(points=1, hidden=True)
def test_encoding_many_shapes_and_bases(shift_matrix):
    for T, d, base in [(7, 2, 10000.0), (12, 8, 100.0), (20, 16, 10.0), (9, 64, 1e6), (1, 4, 10000.0), (6, 10, 2.5)]:
        Call(shift_matrix.sinusoidal_encoding, T, d, base=base).matches_reference()


@test_case(points=1, hidden=True)
def test_encoding_long_sequences_in_float64(shift_matrix):
    Call(shift_matrix.sinusoidal_encoding, 2048, 32).matches_reference()
    Call(shift_matrix.sinusoidal_encoding, 1500, 10, base=500.0).matches_reference()


@test_case(points=1, hidden=True)
def test_encoding_in_float32(shift_matrix):
    for T, d, base in [(3000, 16, 10000.0), (2000, 64, 100.0)]:
        call = Call(shift_matrix.sinusoidal_encoding, T, d, base=base, dtype=FLOAT32)
        got = array_of_shape(call, (T, d))
        atol = 1e-6 + 8 * EPS32 * np.arange(T)
        expect_rows_close(got, call.reference().astype(np.float64), atol, call.shown)


@test_case(points=1, hidden=True)
def test_shift_matrix_several_d_delta_and_bases(shift_matrix):
    for d, delta, base in [(2, 1, 10000.0), (6, 2, 10000.0), (16, 5, 100.0), (8, 3, 3.0), (10, 7, 1e6)]:
        Call(shift_matrix.shift_matrix, d, delta=delta, base=base).matches_reference()
    # Only d given: the handout's defaults (delta=1, base=10000.0, float64).
    Call(shift_matrix.shift_matrix, 12).matches_reference()


@test_case(points=1, hidden=True)
def test_shift_matrix_zero_negative_and_large_delta(shift_matrix):
    for d, delta, base in [(8, 0, 10000.0), (12, -3, 100.0), (8, -1, 10000.0), (8, 1000, 10000.0), (12, -1000, 50.0)]:
        Call(shift_matrix.shift_matrix, d, delta=delta, base=base).matches_reference()


@test_case(points=1, hidden=True)
def test_shift_moves_your_own_encoding(shift_matrix):
    for d, delta, base in [(8, 3, 10000.0), (12, -2, 100.0), (16, 1000, 10000.0), (6, 0, 50.0), (10, -1000, 1e5)]:
        T = abs(delta) + 40
        P = array_of_shape(Call(shift_matrix.sinusoidal_encoding, T, d, base=base), (T, d))
        call = Call(shift_matrix.shift_matrix, d, delta=delta, base=base)
        called = f"M = {call.shown}, p_t = row t of your sinusoidal_encoding(T={T}, d={d}, base={base})"
        expect_positions_told_apart(P, delta, called)
        expect_shifts(array_of_shape(call, (d, d)), P, delta, called)


@test_case(points=1, hidden=True)
def test_shift_moves_the_reference_encoding(shift_matrix):
    for d, delta, base in [(4, 1, 10000.0), (10, 4, 100.0), (14, -5, 10000.0), (8, 1000, 1e4), (6, -7, 20.0)]:
        T = abs(delta) + 30
        P = Call(shift_matrix.sinusoidal_encoding, T, d, base=base).reference()
        call = Call(shift_matrix.shift_matrix, d, delta=delta, base=base)
        expect_shifts(array_of_shape(call, (d, d)), P, delta, f"M = {call.shown}, p_t = the encoding of position t as the handout defines it")


@test_case(points=1, hidden=True)
def test_orthogonal_and_composes(shift_matrix):
    """Properties every shift has, whatever its frequencies; the identity has them too, so each M must also move
    position 0."""
    for d, delta in [(6, 1), (10, -4), (8, 1000)]:
        call = Call(shift_matrix.shift_matrix, d, delta=delta)
        M = array_of_shape(call, (d, d))
        expect_equal(M.T @ M, np.eye(d), called=f"M.T @ M for M = {call.shown}; a shift only turns each (sin, cos) pair, so it should be I")
        expect_moves_position_zero(M, delta, call.shown)
    calls = [Call(shift_matrix.shift_matrix, 8, delta=k, base=100.0) for k in (3, -5, -2)]
    M3, M5, M8 = (array_of_shape(call, (8, 8)) for call in calls)
    expect_equal(M3 @ M5, M8, called="shift_matrix(8, delta=3) @ shift_matrix(8, delta=-5) compared with shift_matrix(8, delta=-2) (base=100.0)")
    for call, M, k in zip(calls, (M3, M5, M8), (3, -5, -2)):
        expect_moves_position_zero(M, k, call.shown)


@test_case(points=1, hidden=True)
def test_shift_matrix_in_float32(shift_matrix):
    for d, delta in [(8, 1), (16, 1000), (12, -1000)]:
        call = Call(shift_matrix.shift_matrix, d, delta=delta, dtype=FLOAT32)
        got = array_of_shape(call, (d, d))
        atol = np.full(d, 1e-6 + 8 * EPS32 * abs(delta))
        expect_rows_close(got, call.reference().astype(np.float64), atol, call.shown)


@test_case(points=1, hidden=True)
def test_odd_d_raises_value_error_in_both_functions(shift_matrix):
    expect_value_error(Call(shift_matrix.sinusoidal_encoding, 2, 1))
    expect_value_error(Call(shift_matrix.sinusoidal_encoding, 4, 7, base=100.0))
    expect_value_error(Call(shift_matrix.shift_matrix, 1))
    expect_value_error(Call(shift_matrix.shift_matrix, 9, delta=-2))
