"""Public tests of problem 4 (shift_matrix): small encodings, one-step and longer shifts, other bases, float32, odd d."""

import numpy as np

from autograder.testkit import FLOAT32, FLOAT64, Call, Named, difference, expect_equal, fail, problem_support, test_case

support = problem_support("shift_matrix")
array_of_shape, expect_value_error = support.array_of_shape, support.expect_value_error
expect_positions_told_apart = support.expect_positions_told_apart


@test_case(points=1, hidden=False)
def test_encoding_small(shift_matrix):
    call = Call(shift_matrix.sinusoidal_encoding, 4, 6)
    got = call.matches_reference()
    expect_equal(got[0], np.array([0.0, 1.0, 0.0, 1.0, 0.0, 1.0]), called=call.shown + "[0]  (position 0: every sin is 0, every cos is 1)")


@test_case(points=0.5, hidden=False)
def test_encoding_other_base(shift_matrix):
    Call(shift_matrix.sinusoidal_encoding, 5, 4, base=100.0).matches_reference()


@test_case(points=1, hidden=False)
def test_shift_matrix_one_step(shift_matrix):
    Call(shift_matrix.shift_matrix, 2).matches_reference()
    Call(shift_matrix.shift_matrix, 4).matches_reference()


@test_case(points=1, hidden=False)
def test_shift_moves_your_encoding_one_step(shift_matrix):
    P = array_of_shape(Call(shift_matrix.sinusoidal_encoding, 10, 6), (10, 6))
    call = Call(shift_matrix.shift_matrix, 6)
    M = array_of_shape(call, (6, 6))
    called = f"M = {call.shown}, p_t = row t of your sinusoidal_encoding(T=10, d=6)"
    expect_positions_told_apart(P, 1, called)
    diff = difference(P[:-1] @ M.T, P[1:], FLOAT64)
    if diff:
        fail(f"M @ p_t should equal p_(t+1) for t = 0..8, but it does not (row r below is t = r): {diff}", called=called)


@test_case(points=1, hidden=False)
def test_odd_d_raises_value_error(shift_matrix):
    expect_value_error(Call(shift_matrix.sinusoidal_encoding, 3, 5))
    expect_value_error(Call(shift_matrix.shift_matrix, 5))


@test_case(points=0.5, hidden=False)
def test_shift_by_other_deltas_and_bases_in_single_precision(shift_matrix):
    Call(shift_matrix.shift_matrix, 4, delta=3, base=100.0).matches_reference()
    Call(shift_matrix.shift_matrix, 4, delta=-2).matches_reference()
    Call(shift_matrix.shift_matrix, 4, delta=0).matches_reference()
    Call(shift_matrix.sinusoidal_encoding, 3, 4, dtype=Named("torch.float32")).matches_reference(rtol=FLOAT32.rtol)
    Call(shift_matrix.shift_matrix, 4, delta=2, dtype=Named("torch.float32")).matches_reference(rtol=FLOAT32.rtol)
