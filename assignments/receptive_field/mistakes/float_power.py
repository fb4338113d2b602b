import math

HINT = "Floating-point powers such as math.pow round large sizes: compute the power with integers so every digit is exact."


def receptive_field_size(n_layers, n_heads, seq_len=None):
    size = int(math.pow(n_heads + 1, n_layers))
    return size if seq_len is None else min(size, seq_len)
