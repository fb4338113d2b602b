# A fair alternative: numpy only; it ignores dtype and always returns float64 ndarrays.
import numpy as np


def sinusoidal_encoding(T, d, base=10000.0, dtype=None):
    if d % 2:
        raise ValueError(f"odd d={d}")
    w = np.power(float(base), -np.arange(0, d, 2) / d)
    angles = np.outer(np.arange(T), w)
    return np.stack([np.sin(angles), np.cos(angles)], axis=-1).reshape(T, d)


def shift_matrix(d, delta=1, base=10000.0, dtype=None):
    if d % 2:
        raise ValueError(f"odd d={d}")
    theta = delta * np.power(float(base), -np.arange(0, d, 2) / d)
    M = np.zeros((d, d))
    for k, (c, s) in enumerate(zip(np.cos(theta), np.sin(theta), strict=True)):
        M[2 * k:2 * k + 2, 2 * k:2 * k + 2] = [[c, s], [-s, c]]
    return M
