# softmax_attention forwards the scale but not the causal flag.
HINT = "With causal=True query i must give zero weight to every key j > i: attention_weights masks the scores of later keys before its softmax, and softmax_attention passes `causal` on to it."


def softmax_attention(Q, K, V, scale=1.0, causal=False):
    return attention_weights(Q, K, scale) @ V
