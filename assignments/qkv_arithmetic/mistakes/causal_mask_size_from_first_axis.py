# The mask's size read from Q.shape[0]: the sequence length only when there are no batch dimensions.
HINT = "The causal mask is T x T with T = Q.shape[-2] (the token axis counted from the end); Q.shape[0] is a batch dimension when there are any."


def attention_weights(Q, K, scale=1.0, causal=False):
    scores = attention_scores(Q, K, scale)
    if causal:
        T = Q.shape[0]
        scores = scores.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
    return softmax(scores, dim=-1)
