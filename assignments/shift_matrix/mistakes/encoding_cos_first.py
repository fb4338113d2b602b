import torch

HINT = "Each pair of columns should be (sin, cos) in that order; yours puts the cosine first."


def sinusoidal_encoding(T, d, base=10000.0, dtype=torch.float64):
    return _cos_first_encoding(T, d, base, dtype)
