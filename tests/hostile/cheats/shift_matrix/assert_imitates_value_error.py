"""Odd d: an assert whose message imitates the line the harness writes for a ValueError.

Appended to the reference shift_matrix.py. It raises AssertionError all the same, and must lose the odd-d points as
the plain assert (the known mistake odd_d_assertion) does."""

import torch


def sinusoidal_encoding(T, d, base=10000.0, dtype=torch.float64):
    assert d % 2 == 0, " raised ValueError: d must be even"
    w = float(base) ** (-2 * torch.arange(d // 2, dtype=torch.float64) / d)
    angles = torch.arange(T, dtype=torch.float64)[:, None] * w
    return torch.stack([angles.sin(), angles.cos()], dim=-1).reshape(T, d).to(dtype)


def shift_matrix(d, delta=1, base=10000.0, dtype=torch.float64):
    assert d % 2 == 0, " raised ValueError: d must be even"
    theta = delta * float(base) ** (-2 * torch.arange(d // 2, dtype=torch.float64) / d)
    c, s = theta.cos(), theta.sin()
    blocks = torch.stack([torch.stack([c, s], -1), torch.stack([-s, c], -1)], -2)
    return torch.block_diag(*blocks).to(dtype)
