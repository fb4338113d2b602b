# An additive mask built in float64: float32 scores are promoted to float64, and the product with
# float32 values then fails.
HINT = "Your causal path fails for float32 inputs: build the mask with the scores' dtype (or use masked_fill), so weights and V agree."


def attention_weights(Q, K, scale=1.0, causal=False):
    scores = attention_scores(Q, K, scale)
    if causal:
        T = scores.shape[-1]
        scores = scores + torch.full((T, T), float("-inf"), dtype=torch.float64).triu(1)
    return softmax(scores, dim=-1)
