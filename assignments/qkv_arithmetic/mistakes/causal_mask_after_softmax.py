# Softmax over all keys first, then the future weights zeroed: the rows no longer sum to 1.
HINT = "Mask the future before the softmax (set those scores to -inf): zeroing weights afterwards leaves rows that do not sum to 1."


def attention_weights(Q, K, scale=1.0, causal=False):
    weights = softmax(attention_scores(Q, K, scale), dim=-1)
    if causal:
        T = weights.shape[-1]
        weights = weights * torch.ones(T, T, dtype=weights.dtype).tril()
    return weights
