import torch

HINT = "Your M always shifts by one position: the angle of each block is w_i * delta."


def shift_matrix(d, delta=1, base=10000.0, dtype=torch.float64):
    theta = _angles(d, 1, base)
    return _block_diagonal(theta.cos(), theta.sin(), -theta.sin(), theta.cos(), dtype)
