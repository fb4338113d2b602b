import torch

HINT = "Every pair turns at the same speed: the exponent 2i/d was computed with integer division, which rounds it to 0."


def _frequencies(d, base):
    if d % 2:
        raise ValueError("d must be even")
    i = torch.arange(d // 2, dtype=torch.float64)
    return float(base) ** (-(2 * i.long() // d).double())


def sinusoidal_encoding(T, d, base=10000.0, dtype=torch.float64):
    return _encoding_at(_frequencies(d, base), T, dtype)


def shift_matrix(d, delta=1, base=10000.0, dtype=torch.float64):
    return _rotations_by(delta * _frequencies(d, base), dtype)
