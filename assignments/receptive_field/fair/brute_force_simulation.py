# A fair alternative: simulate every position's dependency set layer by layer, bottom up,
# and a size computed by a loop that stops growing once it reaches seq_len.


def receptive_field_size(n_layers, n_heads, seq_len=None):
    size = 1
    for _ in range(n_layers):
        size *= n_heads + 1
        if seq_len is not None and size >= seq_len:
            return seq_len
    return size


def receptive_field(attended, position):
    layers = [[list(map(int, row)) for row in layer] for layer in attended]
    if not layers:
        return {position}
    deps = [{t} for t in range(len(layers[0]))]
    for keys in layers:
        deps = [deps[t].union(*(deps[j] for j in keys[t])) for t in range(len(keys))]
    return deps[position]
