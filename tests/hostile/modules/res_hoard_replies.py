"""Resource abuse, hoarding: every call returns 160 MB, so that a grader keeping every reply
until judging holds them all (and more: a reference cycle in the wire's decoder kept each received buffer alive until
the next collection)."""

import torch


def argmax_attention(Q, K, V):
    return torch.ones(20 << 20, dtype=torch.float64)
