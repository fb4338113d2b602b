"""Helpers shared by the public and hidden tests of problem 4 (shift_matrix)."""

import numpy as np

from autograder.testkit import FLOAT64, StudentCallError, expect_true, fail


def array_of_shape(call, shape):
    """The student's value as a float64 array, after checking it has ``shape``."""
    got = call.result()
    if not (isinstance(got, np.ndarray) and got.shape == shape):
        kind = f"shape {got.shape}" if isinstance(got, np.ndarray) else type(got).__name__
        fail(f"expected a tensor of shape {shape}, got {kind}", called=call.shown)
        return np.zeros(shape)  # the check above judges it; the test's later calls come all the same
    return got.astype(np.float64)


def expect_value_error(call):
    """The call must raise ValueError (and not return, or raise something else)."""
    try:
        got = call.result()
    except StudentCallError as exc:
        # Judged by the type of the exception the harness reports, never by its message: an assert whose message reads
        # "raised ValueError" is still an AssertionError.
        expect_true(exc.raised_a("ValueError"), f"an odd d should raise ValueError; instead:\n{exc}")
        return
    kind = f"a {got.shape} array" if isinstance(got, np.ndarray) else type(got).__name__
    fail(f"an odd d cannot be split into (sin, cos) pairs, so this should raise ValueError; it returned {kind}", called=call.shown)


def _row(values):
    """A vector of the student's values, short enough for a message."""
    shown = ", ".join(f"{v:.4g}" for v in values[:8])
    return f"[{shown}{', ...' if len(values) > 8 else ''}]"


def expect_positions_told_apart(P, delta, called):
    """M @ p_t = p_(t+delta) says something about M only when the encoding tells positions apart: where p_t and
    p_(t+delta) are the same row (an encoding of zeros, say) the identity passes, or any M on zeros. So row t must
    differ from row t+1 and from row t+delta. Every correct encoding does by far: its fastest pair (w_0 = 1) alone
    puts 2|sin(s/2)| between rows s positions apart, whatever t."""
    T = P.shape[0]
    tol = FLOAT64.rtol * max(1.0, float(np.abs(P[np.isfinite(P)]).max(initial=0.0)))
    for step in sorted({1, abs(delta)} - {0}):
        if step >= T:
            continue
        with np.errstate(all="ignore"):  # NaN counts as apart: the shift check reports it
            same = np.abs(P[step:] - P[:-step]).max(axis=1) <= tol
        if same.any():
            t = int(np.flatnonzero(same)[0])
            fail(f"this checks M on your own encoding, but your encoding gives positions {t} and {t + step} the same row "
                 f"{_row(P[t])}, so M @ p_t = p_(t{delta:+d}) would hold for wrong matrices too (the identity, for one); "
                 f"each position t should get its own row [sin(w_0 t), cos(w_0 t), ...]",
                 called=called)
            return


def expect_moves_position_zero(M, delta, called):
    """A shift by delta != 0 must move p_0 = [0, 1, 0, 1, ...] (the encoding of position 0 for any base) to p_delta,
    which differs from p_0 by 2|sin(delta/2)| in the first pair alone. Orthogonality and composition hold for the
    identity too; this keeps a matrix that moves nothing from passing them."""
    p0 = np.tile([0.0, 1.0], M.shape[0] // 2)
    with np.errstate(all="ignore"):  # a non-finite M is reported by the orthogonality check
        moved = M @ p0
    if delta != 0 and np.abs(moved - p0).max() <= FLOAT64.rtol:  # NaN: not judged here (orthogonality reports it)
        fail(f"a shift by delta={delta} should move p_0 = [0, 1, 0, 1, ...] (position 0) to p_{delta}, but M @ p_0 "
             f"came back as {_row(moved)}, p_0 itself: this M leaves positions where they are", called=called)
