# A fair alternative: numpy and torch integer scalars instead of Python ints wherever the count fits in 64 bits
# (beyond 2**63 only a Python int is exact, so the count stays one).
import numpy as np
import torch


def _as_int64_where_it_fits(count):
    return np.int64(count) if count < 2**63 else count


def softmax_attention_macs(n_queries, n_keys, d_k, d_v):
    return _as_int64_where_it_fits(n_queries * n_keys * (d_k + d_v))


def transformer_attention_macs(M, N, k):
    pairs = {"encoder_self": (M, M), "cross": (N, M), "decoder_self": (N, N)}
    return {key: _as_int64_where_it_fits(n_q * n_k * 2 * k) for key, (n_q, n_k) in pairs.items()}


def kernel_feature_dim(D, degree):
    return _as_int64_where_it_fits(D**degree)


def linear_attention_macs(N, D, M, degree=2):
    return _as_int64_where_it_fits(N * int(kernel_feature_dim(D, degree)) * (2 * M + 1))


def relative_position_bias_params(max_len, n_heads, max_distance=None):
    reach = max_len - 1 if max_distance is None else min(max_distance, max_len - 1)
    count = (2 * reach + 1) * n_heads
    return torch.tensor(count) if count < 2**63 else count
