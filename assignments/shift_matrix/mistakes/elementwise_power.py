# numpy's ** on arrays is elementwise: step ** delta raises each entry, it does not multiply matrices.
import torch

HINT = "M for delta steps is the one-step matrix multiplied by itself delta times (a matrix power), not each entry raised to the power delta."


def shift_matrix(d, delta=1, base=10000.0, dtype=torch.float64):
    theta = _angles(d, 1, base)
    step = _block_diagonal(theta.cos(), theta.sin(), -theta.sin(), theta.cos(), torch.float64)
    return (step**delta).to(dtype)
