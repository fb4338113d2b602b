# The one-step matrix raised to |delta|: right for delta >= 0, but a negative delta shifts forward.
import torch

HINT = "A negative delta shifts back: M(-delta) is the inverse (here the transpose) of M(delta), not the same matrix."


def shift_matrix(d, delta=1, base=10000.0, dtype=torch.float64):
    step = _block_diagonal(*_one_step_entries(d, base), dtype=torch.float64)
    return torch.linalg.matrix_power(step, abs(delta)).to(dtype)


def _one_step_entries(d, base):
    theta = _angles(d, 1, base)
    return theta.cos(), theta.sin(), -theta.sin(), theta.cos()
