# A fair alternative: the encoding via the exp/log form of the frequencies (the PyTorch tutorial's
# formulation), computed in the requested dtype, and M as torch.block_diag of 2x2 rotations.
import math

import torch


def sinusoidal_encoding(T, d, base=10000.0, dtype=torch.float64):
    if d % 2 == 1:
        raise ValueError("sinusoidal encodings need an even d")
    div_term = torch.exp(torch.arange(0, d, 2, dtype=dtype) * (-math.log(base) / d))
    position = torch.arange(T, dtype=dtype).unsqueeze(1)
    pe = torch.zeros(T, d, dtype=dtype)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe


def shift_matrix(d, delta=1, base=10000.0, dtype=torch.float64):
    if d % 2 == 1:
        raise ValueError("sinusoidal encodings need an even d")
    rotations = []
    for i in range(d // 2):
        angle = torch.tensor(delta * base ** (-2 * i / d), dtype=dtype)
        c, s = torch.cos(angle), torch.sin(angle)
        rotations.append(torch.stack([torch.stack([c, s]), torch.stack([-s, c])]))
    return torch.block_diag(*rotations)
