HINT = "With max_distance given, offsets beyond it share the bias of the clipped offset, so fewer biases are learned."


def relative_position_bias_params(max_len, n_heads, max_distance=None):
    return (2 * (max_len - 1) + 1) * n_heads
