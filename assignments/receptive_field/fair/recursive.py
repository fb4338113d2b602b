# A fair alternative: a memoised recursion over (layer, position), torch tensors for the keys.
from functools import cache

import torch


def receptive_field_size(n_layers, n_heads, seq_len=None):
    if n_layers == 0:
        return 1
    size = (n_heads + 1) * receptive_field_size(n_layers - 1, n_heads)
    return size if seq_len is None else min(size, seq_len)


def receptive_field(attended, position):
    layers = [torch.as_tensor(layer).long() for layer in attended]

    @cache
    def trace(depth, t):
        if depth == 0:
            return frozenset([t])
        keys = layers[depth - 1][t].tolist()
        return trace(depth - 1, t).union(*(trace(depth - 1, j) for j in keys))

    return set(trace(len(layers), position))
