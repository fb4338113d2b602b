# A decoder's view: only offsets i - j >= 0 (keys at or before the query).
HINT = "Offsets run both ways: i - j is negative when the key comes after the query, and those offsets have biases too."


def relative_position_bias_params(max_len, n_heads, max_distance=None):
    reach = max_len - 1 if max_distance is None else min(max_distance, max_len - 1)
    return (reach + 1) * n_heads
