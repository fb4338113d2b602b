import math

HINT = "receptive_field_size must return an int: math.pow returns a float (and rounds large sizes); use the integer power **."


def receptive_field_size(n_layers, n_heads, seq_len=None):
    size = math.pow(n_heads + 1, n_layers)
    return size if seq_len is None else min(size, seq_len)
