# A fair alternative: M for delta is the one-step matrix raised to the power delta (its inverse
# for negative delta), computed in the requested dtype.
import torch


def shift_matrix(d, delta=1, base=10000.0, dtype=torch.float64):
    if d % 2:
        raise ValueError("d must be even")
    w = base ** (-2 * torch.arange(d // 2, dtype=dtype) / d)
    step = torch.zeros(d, d, dtype=dtype)
    for i in range(d // 2):
        step[2 * i, 2 * i] = step[2 * i + 1, 2 * i + 1] = torch.cos(w[i])
        step[2 * i, 2 * i + 1] = torch.sin(w[i])
        step[2 * i + 1, 2 * i] = -torch.sin(w[i])
    if delta < 0:
        step = torch.linalg.inv(step)
    return torch.linalg.matrix_power(step, abs(delta))
