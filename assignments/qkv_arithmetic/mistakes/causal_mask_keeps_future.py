HINT = "Your causal mask hides the past instead of the future: query i may look at keys j <= i only."


def attention_weights(Q, K, scale=1.0, causal=False):
    scores = attention_scores(Q, K, scale)
    if causal:
        T = scores.shape[-1]
        scores = scores.masked_fill(torch.ones(T, T, dtype=torch.bool).tril(-1), float("-inf"))
    return softmax(scores, dim=-1)
