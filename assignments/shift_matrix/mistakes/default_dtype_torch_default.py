# dtype=None falls back on torch's default dtype, float32, so the default call loses precision.
import torch

_reference_encoding, _reference_shift = sinusoidal_encoding, shift_matrix
HINT = "Check the default of `dtype`: the handout's signatures give dtype=torch.float64, and your default results have only float32 accuracy."


def sinusoidal_encoding(T, d, base=10000.0, dtype=None):
    return _reference_encoding(T, d, base, dtype or torch.get_default_dtype())


def shift_matrix(d, delta=1, base=10000.0, dtype=None):
    return _reference_shift(d, delta, base, dtype or torch.get_default_dtype())
