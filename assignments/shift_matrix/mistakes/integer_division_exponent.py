import torch

HINT = "Every pair turns at the same speed: the exponent 2i/d was computed with integer division, which rounds it to 0."


def _frequencies(d, base):
    if d % 2:
        raise ValueError("d must be even")
    i = torch.arange(d // 2, dtype=torch.float64)
    return float(base) ** (-(2 * i.long() // d).double())


def sinusoidal_encoding(T, d, base=10000.0, dtype=torch.float64):
    angles = torch.arange(T, dtype=torch.float64)[:, None] * _frequencies(d, base)
    return torch.stack([angles.sin(), angles.cos()], dim=-1).reshape(T, d).to(dtype)


def shift_matrix(d, delta=1, base=10000.0, dtype=torch.float64):
    theta = delta * _frequencies(d, base)
    c, s = theta.cos(), theta.sin()
    blocks = torch.stack([torch.stack([c, s], -1), torch.stack([-s, c], -1)], -2)
    return torch.block_diag(*blocks).to(dtype)
