# An additive mask of -1e9: right for scores of ordinary size, wrong when the future scores are 1e9 above the others.
HINT = "Adding -1e9 to the future scores does not remove them when scores are larger still: set them to -inf (masked_fill), at any magnitude of the scores."


def attention_weights(Q, K, scale=1.0, causal=False):
    scores = attention_scores(Q, K, scale)
    if causal:
        T = scores.shape[-1]
        scores = scores + torch.ones(T, T, dtype=scores.dtype).triu(1) * -1e9
    return softmax(scores, dim=-1)
