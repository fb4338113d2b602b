HINT = "The cap is off by one: every one of the seq_len positions can be in the receptive field."


def receptive_field_size(n_layers, n_heads, seq_len=None):
    size = (n_heads + 1) ** n_layers
    return size if seq_len is None else min(size, seq_len - 1)
