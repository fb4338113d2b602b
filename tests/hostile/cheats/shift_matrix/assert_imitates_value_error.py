"""Odd d: an assert whose message imitates the line the harness writes for a ValueError.

Appended to the reference shift_matrix.py. It raises AssertionError all the same, and must lose the odd-d points as
the plain assert (the known mistake odd_d_assertion) does."""

import torch

_reference_encoding, _reference_shift = sinusoidal_encoding, shift_matrix  # noqa: F821 - the reference's, above


def sinusoidal_encoding(T, d, base=10000.0, dtype=torch.float64):
    assert d % 2 == 0, " raised ValueError: d must be even"
    return _reference_encoding(T, d, base, dtype)


def shift_matrix(d, delta=1, base=10000.0, dtype=torch.float64):
    assert d % 2 == 0, " raised ValueError: d must be even"
    return _reference_shift(d, delta, base, dtype)
