import torch

HINT = "The frequencies are off: pair i turns at w_i = base ** (-2i/d); check the factor in the exponent."


def _frequencies(d, base):
    if d % 2:
        raise ValueError("d must be even")
    i = torch.arange(d // 2, dtype=torch.float64)
    return float(base) ** (-i / d)


def sinusoidal_encoding(T, d, base=10000.0, dtype=torch.float64):
    return _encoding_at(_frequencies(d, base), T, dtype)


def shift_matrix(d, delta=1, base=10000.0, dtype=torch.float64):
    return _rotations_by(delta * _frequencies(d, base), dtype)
