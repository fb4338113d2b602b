# T5's bucketed biases: a fixed 32 buckets per head whatever the context length.
HINT = "Here every relative position i - j in the context has its own bias (no buckets): count the distinct offsets."


def relative_position_bias_params(max_len, n_heads, max_distance=None):
    return 32 * n_heads
