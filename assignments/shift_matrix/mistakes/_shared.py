"""Helpers shared by shift-matrix mistakes: the block layout and, for wrong frequencies, the rest done right."""

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


def _encoding_at(w, T, dtype):
    angles = torch.arange(T, dtype=torch.float64)[:, None] * w
    return torch.stack([angles.sin(), angles.cos()], dim=-1).reshape(T, len(w) * 2).to(dtype)


def _rotations_by(theta, dtype):
    c, s = theta.cos(), theta.sin()
    blocks = torch.stack([torch.stack([c, s], -1), torch.stack([-s, c], -1)], -2)
    return torch.block_diag(*blocks).to(dtype)


def _cos_first_encoding(T, d, base, dtype):
    """The encoding with each pair written (cos, sin) instead of (sin, cos)."""
    w = _angles(d, 1, base)
    angles = torch.arange(T, dtype=torch.float64)[:, None] * w
    return torch.stack([angles.cos(), angles.sin()], dim=-1).reshape(T, d).to(dtype)
