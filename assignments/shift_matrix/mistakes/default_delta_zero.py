import torch

_reference_shift = shift_matrix
HINT = "Check the default of `delta`: the handout's signature gives delta=1 (one step forward)."


def shift_matrix(d, delta=0, base=10000.0, dtype=torch.float64):
    return _reference_shift(d, delta, base, dtype)
