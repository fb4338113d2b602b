# attention_weights accepts `causal` but never masks; softmax_attention, right as it is, inherits the leak.
HINT = "With causal=True query i must give zero weight to every key j > i: attention_weights masks the scores of later keys before its softmax, and softmax_attention passes `causal` on to it."


def attention_weights(Q, K, scale=1.0, causal=False):
    return softmax(attention_scores(Q, K, scale), dim=-1)
