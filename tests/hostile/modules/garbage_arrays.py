"""Garbage returns: NaN everywhere, the wrong shape, complex and object dtypes."""

import numpy as np
import torch


def argmax_attention(Q, K, V):
    # The three graded calls have queries of shapes (3, 2), (2, 2) and (2, 3, 5, 4).
    shape = Q.shape[:-1] + (V.shape[-1],)
    if tuple(Q.shape) == (3, 2):
        return torch.full(shape, float("nan"), dtype=V.dtype)
    if tuple(Q.shape) == (2, 2):
        return torch.zeros(shape[::-1] + (7,), dtype=torch.int64)
    return [torch.zeros(shape, dtype=torch.complex128), np.zeros(3, dtype=object), torch.zeros(2, 2, device="meta")]
