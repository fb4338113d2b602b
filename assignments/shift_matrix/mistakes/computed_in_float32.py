import torch

HINT = "Your values carry only float32 accuracy although float64 was asked for: do the arithmetic in float64 (the default dtype)."


def sinusoidal_encoding(T, d, base=10000.0, dtype=torch.float64):
    if d % 2:
        raise ValueError("d must be even")
    w = torch.tensor(float(base)) ** (-2 * torch.arange(d // 2, dtype=torch.float32) / d)
    angles = torch.arange(T, dtype=torch.float32)[:, None] * w
    return torch.stack([angles.sin(), angles.cos()], dim=-1).reshape(T, d).to(dtype)


def shift_matrix(d, delta=1, base=10000.0, dtype=torch.float64):
    if d % 2:
        raise ValueError("d must be even")
    theta = delta * torch.tensor(float(base)) ** (-2 * torch.arange(d // 2, dtype=torch.float32) / d)
    c, s = theta.cos(), theta.sin()
    blocks = torch.stack([torch.stack([c, s], -1), torch.stack([-s, c], -1)], -2)
    return torch.block_diag(*blocks).to(dtype)
