# A fair alternative: plain Python loops and the math module, converted to a tensor at the end.
import math

import torch


def sinusoidal_encoding(T, d, base=10000.0, dtype=torch.float64):
    if d % 2 != 0:
        raise ValueError("d has to be even")
    rows = []
    for t in range(T):
        row = []
        for i in range(d // 2):
            w = base ** (-2 * i / d)
            row += [math.sin(w * t), math.cos(w * t)]
        rows.append(row)
    return torch.tensor(rows, dtype=dtype).reshape(T, d)


def shift_matrix(d, delta=1, base=10000.0, dtype=torch.float64):
    if d % 2 != 0:
        raise ValueError("d has to be even")
    M = [[0.0] * d for _ in range(d)]
    for i in range(d // 2):
        angle = delta / base ** (2 * i / d)
        c, s = math.cos(angle), math.sin(angle)
        M[2 * i][2 * i], M[2 * i][2 * i + 1] = c, s
        M[2 * i + 1][2 * i], M[2 * i + 1][2 * i + 1] = -s, c
    return torch.tensor(M, dtype=dtype)
