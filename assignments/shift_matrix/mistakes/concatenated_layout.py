import torch

HINT = "The columns should interleave sin and cos of each frequency ([sin w_0 t, cos w_0 t, sin w_1 t, ...]), not list all sines and then all cosines."


def sinusoidal_encoding(T, d, base=10000.0, dtype=torch.float64):
    if d % 2:
        raise ValueError("d must be even")
    w = float(base) ** (-2 * torch.arange(d // 2, dtype=torch.float64) / d)
    angles = torch.arange(T, dtype=torch.float64)[:, None] * w
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)


def shift_matrix(d, delta=1, base=10000.0, dtype=torch.float64):
    if d % 2:
        raise ValueError("d must be even")
    theta = delta * float(base) ** (-2 * torch.arange(d // 2, dtype=torch.float64) / d)
    C, S = torch.diag(theta.cos()), torch.diag(theta.sin())
    return torch.cat([torch.cat([C, S], 1), torch.cat([-S, C], 1)], 0).to(dtype)
