HINT = "Only the score product Q K^T is counted: the weighted sum A V of the values is a matrix product too."


def softmax_attention_macs(n_queries, n_keys, d_k, d_v):
    return n_queries * n_keys * d_k
