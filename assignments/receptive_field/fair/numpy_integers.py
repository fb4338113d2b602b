# A fair alternative: numpy throughout, so the answers come back as numpy integers.
import numpy as np


def receptive_field_size(n_layers, n_heads, seq_len=None):
    size = (n_heads + 1) ** n_layers
    if seq_len is not None:
        size = min(size, seq_len)
    # np.int64 where the answer fits; beyond 2**63 only a Python int is exact.
    return np.int64(size) if size < 2**63 else size


def receptive_field(attended, position):
    reached = np.array([position])
    for layer in list(attended)[::-1]:
        keys = np.asarray(layer, dtype=np.int64)
        reached = np.union1d(reached, keys[reached].ravel())
    return set(reached)
