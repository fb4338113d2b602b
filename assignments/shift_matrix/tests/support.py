"""Helpers shared by the public and hidden tests of problem 4 (shift_matrix)."""

import numpy as np

from autograder.testkit import StudentCallError, expect_true, fail


def array_of_shape(call, shape):
    """The student's value as a float64 array, after checking it has ``shape``."""
    got = call.result()
    if not (isinstance(got, np.ndarray) and got.shape == shape):
        kind = f"shape {got.shape}" if isinstance(got, np.ndarray) else type(got).__name__
        fail(f"expected a tensor of shape {shape}, got {kind}", called=call.shown)
    return got.astype(np.float64)


def expect_value_error(call):
    """The call must raise ValueError (and not return, or raise something else)."""
    try:
        got = call.result()
    except StudentCallError as exc:
        # Judged by the type of the exception the harness reports, never by its message: an assert whose message reads
        # "raised ValueError" is still an AssertionError.
        expect_true(exc.kind == "raised" and exc.raised == "ValueError", f"an odd d should raise ValueError; instead:\n{exc}")
        return
    kind = f"a {got.shape} array" if isinstance(got, np.ndarray) else type(got).__name__
    fail(f"an odd d cannot be split into (sin, cos) pairs, so this should raise ValueError; it returned {kind}", called=call.shown)
