HINT = "The residual connection also passes each position up, so every layer multiplies the count by n_heads + 1, not n_heads."


def receptive_field_size(n_layers, n_heads, seq_len=None):
    size = n_heads**n_layers
    return size if seq_len is None else min(size, seq_len)
