# The mask also hides key i from query i (triu(diagonal=0)): query 0 then has no key left.
HINT = "Query i may attend to keys j <= i, including itself: mask only the keys above the diagonal (j > i)."


def attention_weights(Q, K, scale=1.0, causal=False):
    scores = attention_scores(Q, K, scale)
    if causal:
        T = scores.shape[-1]
        scores = scores.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(0), float("-inf"))
    return softmax(scores, dim=-1)
