"""An encoding of zeros, and the identity for every shift.

Appended to the reference shift_matrix.py. M @ p_t = p_(t+delta) holds on rows of zeros for any M, and the identity is
orthogonal and composes, though it moves nothing: the tests of those properties must not pass it."""

import torch


def sinusoidal_encoding(T, d, base=10000.0, dtype=torch.float64):
    if d % 2:
        raise ValueError("d must be even")
    return torch.zeros(T, d, dtype=dtype)


def shift_matrix(d, delta=1, base=10000.0, dtype=torch.float64):
    if d % 2:
        raise ValueError("d must be even")
    return torch.eye(d, dtype=dtype)
