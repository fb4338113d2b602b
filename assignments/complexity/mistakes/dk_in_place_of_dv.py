HINT = "The weighted sum A V multiplies by the values, whose width is d_v, not d_k."


def softmax_attention_macs(n_queries, n_keys, d_k, d_v):
    return 2 * n_queries * n_keys * d_k
