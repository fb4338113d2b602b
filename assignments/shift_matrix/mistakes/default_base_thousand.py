import torch

_reference_encoding, _reference_shift = sinusoidal_encoding, shift_matrix
HINT = "Check the default of `base`: the handout's signatures give base=10000.0."


def sinusoidal_encoding(T, d, base=1000.0, dtype=torch.float64):
    return _reference_encoding(T, d, base, dtype)


def shift_matrix(d, delta=1, base=1000.0, dtype=torch.float64):
    return _reference_shift(d, delta, base, dtype)
