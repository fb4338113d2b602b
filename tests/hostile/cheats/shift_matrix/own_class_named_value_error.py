"""Odd d: an exception class of the module's own that is named ValueError (and claims to come from builtins) but is not
derived from Python's ValueError: `except ValueError` would not catch it.

Appended to the reference shift_matrix.py. It must lose the odd-d points, and the student must read that the class is
their own."""

import torch

_reference_encoding, _reference_shift = sinusoidal_encoding, shift_matrix  # noqa: F821 - the reference's, above


class ValueError(Exception):  # noqa: A001 - the point of the case
    __module__ = "builtins"


def sinusoidal_encoding(T, d, base=10000.0, dtype=torch.float64):
    if d % 2:
        raise ValueError("d must be even")
    return _reference_encoding(T, d, base, dtype)


def shift_matrix(d, delta=1, base=10000.0, dtype=torch.float64):
    if d % 2:
        raise ValueError("d must be even")
    return _reference_shift(d, delta, base, dtype)
