# A fair alternative in the style of a classic numpy position table: the angle of column j is
# pos / base ** (2 (j // 2) / d), then sine on the even columns and cosine on the odd ones; M is read
# off the angle-addition formulas one 2 x 2 block at a time.
import numpy as np


def sinusoidal_encoding(T, d, base=10000.0, dtype=torch.float64):
    if d % 2:
        raise ValueError("the encoding pairs sines and cosines, so d must be even")
    angles = np.array([[pos / np.power(base, 2 * (j // 2) / d) for j in range(d)] for pos in range(T)]).reshape(T, d)
    table = np.empty((T, d))
    table[:, 0::2] = np.sin(angles[:, 0::2])
    table[:, 1::2] = np.cos(angles[:, 1::2])
    return torch.from_numpy(table).to(dtype)


def shift_matrix(d, delta=1, base=10000.0, dtype=torch.float64):
    if d % 2:
        raise ValueError("the encoding pairs sines and cosines, so d must be even")
    M = np.zeros((d, d))
    for j in range(0, d, 2):
        angle = delta / np.power(base, j / d)
        M[j:j + 2, j:j + 2] = [[np.cos(angle), np.sin(angle)], [-np.sin(angle), np.cos(angle)]]
    return torch.from_numpy(M).to(dtype)
