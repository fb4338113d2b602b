HINT = "Your attention weights sum to 1 over the queries (down each column), not over the keys: normalise along the last axis."


def attention_weights(Q, K, scale=1.0, causal=False):
    scores = attention_scores(Q, K, scale)
    if causal:
        T = scores.shape[-1]
        scores = scores.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
    return softmax(scores, dim=-2)
