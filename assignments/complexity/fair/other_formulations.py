# A fair alternative: other ways to the same counts (loops, factored sums, brute-force offsets).
import math


def softmax_attention_macs(n_queries, n_keys, d_k, d_v):
    # One row of scores per query, then one row of output per query.
    return sum(n_keys * d_k + n_keys * d_v for _ in range(n_queries)) if n_queries < 1000 else n_queries * n_keys * (d_k + d_v)


def transformer_attention_macs(M, N, k):
    names = ("decoder_self", "cross", "encoder_self")
    costs = (softmax_attention_macs(N, N, k, k), softmax_attention_macs(N, M, k, k), softmax_attention_macs(M, M, k, k))
    return dict(zip(names, costs, strict=True))


def kernel_feature_dim(D, degree):
    return math.prod([D] * degree)


def linear_attention_macs(N, D, M, degree=2):
    F = kernel_feature_dim(D, degree)
    return N * F * (2 * M + 1)


def crossover_length(D, M, degree=2):
    F = kernel_feature_dim(D, degree)
    return (F * (2 * M + 1) + D + M) // (D + M)


def relative_position_bias_params(max_len, n_heads, max_distance=None):
    clip = max_len if max_distance is None else max_distance
    if max_len > 4096:  # listing every pair is quadratic: the distinct clipped offsets are the integers of [-reach, reach]
        return (2 * min(clip, max_len - 1) + 1) * n_heads
    offsets = {max(-clip, min(clip, i - j)) for i in range(max_len) for j in range(max_len)}
    return len(offsets) * n_heads
