import torch

HINT = "One entry of your 2x2 blocks has the wrong sign: expand cos(w(t + delta)) with the angle-addition formula again."


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


def shift_matrix(d, delta=1, base=10000.0, dtype=torch.float64):
    theta = _angles(d, delta, base)
    return _block_diagonal(theta.cos(), theta.sin(), theta.sin(), theta.cos(), dtype)
