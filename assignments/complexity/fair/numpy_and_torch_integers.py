# A fair alternative: numpy and torch integer scalars instead of Python ints.
import numpy as np
import torch


def softmax_attention_macs(n_queries, n_keys, d_k, d_v):
    return np.int64(n_queries) * np.int64(n_keys) * np.int64(d_k + d_v)


def transformer_attention_macs(M, N, k):
    pairs = {"encoder_self": (M, M), "cross": (N, M), "decoder_self": (N, N)}
    return {key: np.prod([n_q, n_k, 2 * k], dtype=np.int64) for key, (n_q, n_k) in pairs.items()}


def kernel_feature_dim(D, degree):
    return np.int64(D) ** degree


def linear_attention_macs(N, D, M, degree=2):
    return np.int64(N) * kernel_feature_dim(D, degree) * np.int64(2 * M + 1)


def relative_position_bias_params(max_len, n_heads, max_distance=None):
    reach = max_len - 1 if max_distance is None else min(max_distance, max_len - 1)
    return torch.tensor(2 * reach + 1) * n_heads
