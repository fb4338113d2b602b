# M built by multiplying the one-step matrix into itself, starting from the one-step matrix:
# right for every delta except 0, which should give the identity.
import torch

HINT = "delta = 0 shifts nothing, so M must be the identity; your product starts from the one-step matrix."


def shift_matrix(d, delta=1, base=10000.0, dtype=torch.float64):
    theta = _angles(d, 1, base)
    step = _block_diagonal(theta.cos(), theta.sin(), -theta.sin(), theta.cos(), torch.float64)
    if delta < 0:
        step = step.T
    M = step
    for _ in range(abs(delta) - 1):
        M = M @ step
    return M.to(dtype)
