# The timescale spacing of tensor2tensor's get_timing_signal_1d (and fairseq's sinusoidal
# embedding): log(base) / (d/2 - 1) per pair instead of 2 log(base) / d. The last pair then turns at
# exactly 1/base, and every frequency but the first differs from the handout's.
import math

import torch

HINT = "The frequencies are spaced differently from the handout's: pair i turns at w_i = base ** (-2i/d), so the last pair's exponent is -(d-2)/d, not -1."


def _frequencies(d, base):
    if d % 2:
        raise ValueError("d must be even")
    pairs = d // 2
    step = math.log(float(base)) / max(pairs - 1, 1)
    return torch.exp(-step * torch.arange(pairs, dtype=torch.float64))


def sinusoidal_encoding(T, d, base=10000.0, dtype=torch.float64):
    return _encoding_at(_frequencies(d, base), T, dtype)


def shift_matrix(d, delta=1, base=10000.0, dtype=torch.float64):
    return _rotations_by(delta * _frequencies(d, base), dtype)
