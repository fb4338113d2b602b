# A fair alternative: Hugging Face's additive mask, (1 - keep) * torch.finfo(dtype).min added to the scores (a
# negative score plus finfo.min overflows to -inf, which is still a removed key), and argmax through a one-hot of the
# first maximal index (cumulative count of the maxima).


def attention_weights(Q, K, scale=1.0, causal=False):
    scores = attention_scores(Q, K, scale)
    if causal:
        T = scores.shape[-1]
        keep = torch.ones(T, T, dtype=scores.dtype).tril()
        scores = scores + (1.0 - keep) * torch.finfo(scores.dtype).min
    return torch.softmax(scores, dim=-1)


def argmax_attention(Q, K, V):
    scores = attention_scores(Q, K)
    best = scores == scores.amax(dim=-1, keepdim=True)
    first = best & (best.cumsum(dim=-1) == 1)
    return first.to(V.dtype) @ V
