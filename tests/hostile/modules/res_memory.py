"""Resource abuse: allocate far more memory than the limit, three different ways."""

import numpy as np
import torch


def argmax_attention(Q, K, V):
    # The three graded calls have queries of shapes (3, 2), (2, 2) and (2, 3, 5, 4).
    if tuple(Q.shape) == (3, 2):
        return bytearray(64 << 30)
    if tuple(Q.shape) == (2, 2):
        return torch.ones(1 << 36, dtype=torch.float64)
    hoard = []
    while True:
        hoard.append(np.ones(1 << 25))  # 256 MB at a time, touched
