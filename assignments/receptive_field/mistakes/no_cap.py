HINT = "An output cannot depend on more positions than the sequence has: cap the size at seq_len when it is given."


def receptive_field_size(n_layers, n_heads, seq_len=None):
    return (n_heads + 1) ** n_layers
