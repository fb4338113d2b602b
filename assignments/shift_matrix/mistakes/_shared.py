"""Helpers shared by the shift-matrix mistakes that get one entry of the 2x2 blocks wrong."""

import torch


def _block_diagonal(a, b, c, e, dtype):
    d = 2 * len(a)
    M = torch.zeros(d, d, dtype=torch.float64)
    even = torch.arange(0, d, 2)
    M[even, even], M[even, even + 1], M[even + 1, even], M[even + 1, even + 1] = a, b, c, e
    return M.to(dtype)


def _angles(d, delta, base):
    if d % 2:
        raise ValueError("d must be even")
    return delta * float(base) ** (-2 * torch.arange(d // 2, dtype=torch.float64) / d)
