import math

HINT = "Comparing logarithms in floats cannot tell a cap one below or one above a large size apart; compare the integers themselves."


def receptive_field_size(n_layers, n_heads, seq_len=None):
    if seq_len is not None and n_layers * math.log(n_heads + 1) >= math.log(seq_len):
        return seq_len
    return (n_heads + 1) ** n_layers
