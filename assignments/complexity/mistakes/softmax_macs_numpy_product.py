import numpy as np

HINT = "np.prod multiplies in int64, which wraps around silently beyond 2**63; multiply Python ints, which are exact at any size."


def softmax_attention_macs(n_queries, n_keys, d_k, d_v):
    return int(np.prod([n_queries, n_keys, d_k + d_v]))
