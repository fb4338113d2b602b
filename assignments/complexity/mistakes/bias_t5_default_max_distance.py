# T5's relative_attention_max_distance of 128 as the default: offsets are clipped even when no
# max_distance is given, which shows only for contexts longer than 129 tokens.
HINT = "Without max_distance nothing is clipped: every offset of the context, up to max_len - 1 either way, has its own bias."


def relative_position_bias_params(max_len, n_heads, max_distance=128):
    reach = max_len - 1 if max_distance is None else min(max_distance, max_len - 1)
    return (2 * reach + 1) * n_heads
