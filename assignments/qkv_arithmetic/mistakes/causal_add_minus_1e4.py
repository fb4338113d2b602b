# BERT's additive mask: (1 - mask) * -10000.0 added to the scores. Future keys scoring more than 1e4 above the
# allowed ones keep their weight.
HINT = "Adding -1e4 (or any finite number) to the future scores does not remove them when scores are large: set them to -inf (masked_fill), at any magnitude of the scores."


def attention_weights(Q, K, scale=1.0, causal=False):
    scores = attention_scores(Q, K, scale)
    if causal:
        T = scores.shape[-1]
        keep = torch.ones(T, T, dtype=scores.dtype).tril()
        scores = scores + (1.0 - keep) * -10000.0
    return softmax(scores, dim=-1)
