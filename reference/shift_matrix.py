"""Problem 4: sinusoidal position encodings and the matrix M that shifts them.

Each pair of columns (sin(w_i t), cos(w_i t)) turns by the angle w_i as t grows by one, so
moving every pair forward by delta steps is a block-diagonal matrix of 2x2 rotations.
"""

from __future__ import annotations

import torch


def sinusoidal_encoding(T: int, d: int, base: float = 10000.0, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """Return the (T, d) matrix whose row t is [sin(w_0 t), cos(w_0 t), sin(w_1 t), cos(w_1 t), ...], w_i = base ** (-2i/d)."""
    # BEGIN SOLUTION
    if d % 2:
        raise ValueError(f"d must be even (pairs of sin and cos), got {d}")
    # Computed in float64 whatever the dtype: float32 angles t * w_i lose accuracy as t grows.
    w = float(base) ** (-2 * torch.arange(d // 2, dtype=torch.float64) / d)
    angles = torch.arange(T, dtype=torch.float64)[:, None] * w
    P = torch.empty(T, d, dtype=torch.float64)
    P[:, 0::2] = torch.sin(angles)
    P[:, 1::2] = torch.cos(angles)
    return P.to(dtype)
    # END SOLUTION


def shift_matrix(d: int, delta: int = 1, base: float = 10000.0, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """Return the (d, d) matrix M with p_{t+delta} = M @ p_t for every position t (column vectors)."""
    # BEGIN SOLUTION
    if d % 2:
        raise ValueError(f"d must be even (pairs of sin and cos), got {d}")
    theta = delta * float(base) ** (-2 * torch.arange(d // 2, dtype=torch.float64) / d)
    c, s = torch.cos(theta), torch.sin(theta)
    # sin(a + b) = sin a cos b + cos a sin b and cos(a + b) = cos a cos b - sin a sin b, per pair.
    M = torch.zeros(d, d, dtype=torch.float64)
    even = torch.arange(0, d, 2)
    M[even, even] = c
    M[even, even + 1] = s
    M[even + 1, even] = -s
    M[even + 1, even + 1] = c
    return M.to(dtype)
    # END SOLUTION
