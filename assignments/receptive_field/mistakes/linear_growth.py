HINT = "The receptive field grows geometrically, not linearly: every position reached so far branches again at the next layer down."


def receptive_field_size(n_layers, n_heads, seq_len=None):
    size = n_layers * n_heads + 1
    return size if seq_len is None else min(size, seq_len)
