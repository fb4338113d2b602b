import torch

HINT = "Sine and cosine trade places in your 2x2 blocks: with delta = 0 the matrix should be the identity."


def shift_matrix(d, delta=1, base=10000.0, dtype=torch.float64):
    theta = _angles(d, delta, base)
    return _block_diagonal(theta.sin(), theta.cos(), -theta.cos(), theta.sin(), dtype)
