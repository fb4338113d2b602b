HINT = "The offset i - j = 0 (a token and itself) has a bias too."


def relative_position_bias_params(max_len, n_heads, max_distance=None):
    reach = max_len - 1 if max_distance is None else min(max_distance, max_len - 1)
    return 2 * reach * n_heads
