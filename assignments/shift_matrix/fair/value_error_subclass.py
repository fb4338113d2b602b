# A fair alternative: an odd d raises an exception class of the module's own derived from ValueError (it is a
# ValueError: `except ValueError` catches it); the encoding from an outer product of positions and rates, and M filled
# in by index, two diagonals and two off-diagonals at once.
import torch


class OddDimensionError(ValueError):
    """The encoding pairs a sine and a cosine per rate, so d must be even."""


def _rates(d, base):
    if d % 2:
        raise OddDimensionError(f"d = {d} is odd: the encoding needs (sin, cos) pairs")
    return base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)


def sinusoidal_encoding(T, d, base=10000.0, dtype=torch.float64):
    angles = torch.outer(torch.arange(T, dtype=torch.float64), _rates(d, base))
    return torch.stack((angles.sin(), angles.cos()), dim=-1).reshape(T, d).to(dtype)


def shift_matrix(d, delta=1, base=10000.0, dtype=torch.float64):
    angles = delta * _rates(d, base)
    even = torch.arange(0, d, 2)
    M = torch.zeros(d, d, dtype=torch.float64)
    M[even, even] = M[even + 1, even + 1] = angles.cos()
    M[even, even + 1] = angles.sin()
    M[even + 1, even] = -angles.sin()
    return M.to(dtype)
