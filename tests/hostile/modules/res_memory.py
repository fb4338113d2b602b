"""Resource abuse: allocate far more memory than the limit, three different ways."""

import numpy as np
import torch


def argmax_attention(Q, K, V):
    # The graded calls, public tests first: queries of shapes (3, 2) and (5, 3) in float32, then hidden ones such as
    # (2, 2) and (2, 3, 5, 4).
    if tuple(Q.shape) == (3, 2):
        return bytearray(64 << 30)
    if tuple(Q.shape) == (2, 2) or Q.dtype == torch.float32:
        return torch.ones(1 << 36, dtype=torch.float64)
    hoard = []
    while True:
        hoard.append(np.ones(1 << 25))  # 256 MB at a time, touched
