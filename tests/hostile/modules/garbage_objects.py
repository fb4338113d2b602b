"""Garbage returns: objects that cannot cross or refuse to be inspected, a list that contains itself, 335 MB of zeros."""

import numpy as np
import torch


class Evil:
    def __repr__(self):
        raise RuntimeError("no repr for you")

    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


class LyingInt(int):
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__


def argmax_attention(Q, K, V):
    # The three graded calls have queries of shapes (3, 2), (2, 2) and (2, 3, 5, 4).
    if tuple(Q.shape) == (3, 2):
        return (Evil(), LyingInt(7), torch, lambda: 1, {Evil(): 1})
    if tuple(Q.shape) == (2, 2):
        loop = []
        loop.append(loop)
        return loop
    # Far beyond what a reply may carry (the worker refuses it before sending anything).
    return np.zeros((40, 1 << 20), dtype=np.float64)
