HINT = "The biases are per head: each head learns its own table."


def relative_position_bias_params(max_len, n_heads, max_distance=None):
    reach = max_len - 1 if max_distance is None else min(max_distance, max_len - 1)
    return 2 * reach + 1
