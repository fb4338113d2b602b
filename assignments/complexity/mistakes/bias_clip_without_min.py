HINT = "Clipping cannot add offsets: when max_distance exceeds the longest offset the context allows, the context is the limit."


def relative_position_bias_params(max_len, n_heads, max_distance=None):
    reach = max_len - 1 if max_distance is None else max_distance
    return (2 * reach + 1) * n_heads
