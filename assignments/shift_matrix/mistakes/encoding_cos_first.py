import torch

HINT = "Each pair of columns should be (sin, cos) in that order; yours puts the cosine first."


def sinusoidal_encoding(T, d, base=10000.0, dtype=torch.float64):
    if d % 2:
        raise ValueError("d must be even")
    w = float(base) ** (-2 * torch.arange(d // 2, dtype=torch.float64) / d)
    angles = torch.arange(T, dtype=torch.float64)[:, None] * w
    return torch.stack([angles.cos(), angles.sin()], dim=-1).reshape(T, d).to(dtype)
