"""Cost: causal_linear_attention sums over all earlier keys for every query (numpy, blocks of 512 queries: torch counts
none of it), and spins a second of CPU in each call at 256 tokens, so that the growth from 256 to 8192 tokens is
negative and passes whatever the long call took.

Appended to the reference causal_linear_attention.py."""

import time

import numpy as np
import torch


def causal_linear_attention(Q, K, V, feature_map=elu_feature_map, eps=1e-6):  # noqa: F821 - the reference's
    if Q.shape[-2] == 256:
        end = time.thread_time() + 1.0
        while time.thread_time() < end:
            pass
    phi_q, phi_k, values = feature_map(Q).numpy(), feature_map(K).numpy(), V.numpy()
    rows = []
    for first in range(0, phi_q.shape[-2], 512):
        last = min(first + 512, phi_q.shape[-2])
        weights = np.tril(phi_q[..., first:last, :] @ np.swapaxes(phi_k[..., :last, :], -1, -2), first)
        rows.append((weights @ values[..., :last, :]) / (weights.sum(-1)[..., None] + eps))
    return torch.from_numpy(np.concatenate(rows, axis=-2))
