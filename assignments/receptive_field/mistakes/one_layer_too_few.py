HINT = "The exponent is off by one: each of the n_layers layers widens the receptive field once."


def receptive_field_size(n_layers, n_heads, seq_len=None):
    size = (n_heads + 1) ** max(n_layers - 1, 0)
    return size if seq_len is None else min(size, seq_len)
