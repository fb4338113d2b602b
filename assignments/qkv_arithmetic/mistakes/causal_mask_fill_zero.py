# masked_fill(mask, 0) on the scores: a score of 0 still gets weight exp(0) after the softmax.
HINT = "A masked score must become -inf (weight exactly 0 after the softmax); setting it to 0 still gives the future keys weight."


def attention_weights(Q, K, scale=1.0, causal=False):
    scores = attention_scores(Q, K, scale)
    if causal:
        T = scores.shape[-1]
        scores = scores.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), 0.0)
    return softmax(scores, dim=-1)
