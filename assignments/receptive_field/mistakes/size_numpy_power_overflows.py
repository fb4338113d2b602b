import numpy as np

HINT = "numpy integer powers wrap around silently beyond 2**63; Python's int ** is exact however large the size gets."


def receptive_field_size(n_layers, n_heads, seq_len=None):
    size = np.power(np.int64(n_heads + 1), n_layers)
    return size if seq_len is None else min(size, seq_len)
