import torch

HINT = "Your 2x2 blocks are transposed: this M moves the encoding back by delta positions instead of forward."


def shift_matrix(d, delta=1, base=10000.0, dtype=torch.float64):
    theta = _angles(d, delta, base)
    return _block_diagonal(theta.cos(), -theta.sin(), theta.sin(), theta.cos(), dtype)
