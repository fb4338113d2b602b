# GPT-2's causal bias: torch.where(mask, scores, -1e4). When every allowed score is below -1e4 the future keys win.
HINT = "Filling the future scores with -1e4 leaves them in front when the allowed scores are below -1e4: fill them with -inf, at any magnitude of the scores."


def attention_weights(Q, K, scale=1.0, causal=False):
    scores = attention_scores(Q, K, scale)
    if causal:
        T = scores.shape[-1]
        keep = torch.ones(T, T, dtype=torch.bool).tril()
        scores = torch.where(keep, scores, torch.tensor(-1e4, dtype=scores.dtype))
    return softmax(scores, dim=-1)
