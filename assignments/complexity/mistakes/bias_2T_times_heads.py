HINT = "Count the distinct offsets i - j: with max_len tokens they run from -(max_len-1) to max_len-1."


def relative_position_bias_params(max_len, n_heads, max_distance=None):
    return 2 * max_len * n_heads
