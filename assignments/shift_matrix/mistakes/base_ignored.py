import torch

HINT = "The base argument is ignored: the frequencies w_i = base ** (-2i/d) must use the base you are given."


def _frequencies(d, base):
    if d % 2:
        raise ValueError("d must be even")
    i = torch.arange(d // 2, dtype=torch.float64)
    return 10000.0 ** (-2 * i / d)


def sinusoidal_encoding(T, d, base=10000.0, dtype=torch.float64):
    return _encoding_at(_frequencies(d, base), T, dtype)


def shift_matrix(d, delta=1, base=10000.0, dtype=torch.float64):
    return _rotations_by(delta * _frequencies(d, base), dtype)
