# `if max_distance:` tests truthiness, so max_distance = 0 (the smallest legal clipping: one bias per head) counts as
# "not given" and nothing is clipped.
HINT = "max_distance=0 is a real clipping distance (only the offset 0, one bias per head): test `max_distance is None`, not its truthiness."


def relative_position_bias_params(max_len, n_heads, max_distance=None):
    reach = min(max_distance, max_len - 1) if max_distance else max_len - 1
    return (2 * reach + 1) * n_heads
