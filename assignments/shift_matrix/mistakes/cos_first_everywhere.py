import torch

HINT = "Each pair of columns is (sin, cos) in that order; your encoding or your M is built for (cos, sin) pairs."


def sinusoidal_encoding(T, d, base=10000.0, dtype=torch.float64):
    return _cos_first_encoding(T, d, base, dtype)


def shift_matrix(d, delta=1, base=10000.0, dtype=torch.float64):
    if d % 2:
        raise ValueError("d must be even")
    theta = delta * float(base) ** (-2 * torch.arange(d // 2, dtype=torch.float64) / d)
    c, s = theta.cos(), theta.sin()
    blocks = torch.stack([torch.stack([c, -s], -1), torch.stack([s, c], -1)], -2)
    return torch.block_diag(*blocks).to(dtype)
