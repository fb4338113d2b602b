# Softmax over every key, then the future weights zeroed and the rows renormalised: the same for moderate scores,
# but when a future key dominates, the allowed weights underflow to 0 and the row is 0/0.
HINT = "Renormalising after masking the softmax fails when a future key dominates (the allowed weights underflow to 0): mask the scores with -inf before the softmax."


def attention_weights(Q, K, scale=1.0, causal=False):
    weights = softmax(attention_scores(Q, K, scale), dim=-1)
    if causal:
        T = weights.shape[-1]
        weights = weights * torch.ones(T, T, dtype=weights.dtype).tril()
        weights = weights / weights.sum(dim=-1, keepdim=True)
    return weights
