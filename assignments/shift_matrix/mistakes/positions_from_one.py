import torch

HINT = "Your encoding starts counting positions at 1: row t must encode position t, so row 0 is [0, 1, 0, 1, ...]."


def sinusoidal_encoding(T, d, base=10000.0, dtype=torch.float64):
    if d % 2:
        raise ValueError("d must be even")
    w = float(base) ** (-2 * torch.arange(d // 2, dtype=torch.float64) / d)
    angles = torch.arange(1, T + 1, dtype=torch.float64)[:, None] * w
    return torch.stack([angles.sin(), angles.cos()], dim=-1).reshape(T, d).to(dtype)
