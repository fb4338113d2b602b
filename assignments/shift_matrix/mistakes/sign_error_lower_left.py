import torch

HINT = "One entry of your 2x2 blocks has the wrong sign: expand cos(w(t + delta)) with the angle-addition formula again."


def shift_matrix(d, delta=1, base=10000.0, dtype=torch.float64):
    theta = _angles(d, delta, base)
    return _block_diagonal(theta.cos(), theta.sin(), theta.sin(), theta.cos(), dtype)
