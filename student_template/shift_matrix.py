# Student stub generated from the reference by `make templates`. Replace each TODO with your code.
"""Problem 4: sinusoidal position encodings and the matrix M that shifts them.

Each pair of columns (sin(w_i t), cos(w_i t)) turns by the angle w_i as t grows by one, so
moving every pair forward by delta steps is a block-diagonal matrix of 2x2 rotations.
"""

from __future__ import annotations

import torch


def sinusoidal_encoding(T: int, d: int, base: float = 10000.0, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """Return the (T, d) matrix whose row t is [sin(w_0 t), cos(w_0 t), sin(w_1 t), cos(w_1 t), ...], w_i = base ** (-2i/d)."""
    raise NotImplementedError("TODO: implement sinusoidal_encoding()")


def shift_matrix(d: int, delta: int = 1, base: float = 10000.0, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """Return the (d, d) matrix M with p_{t+delta} = M @ p_t for every position t (column vectors)."""
    raise NotImplementedError("TODO: implement shift_matrix()")
