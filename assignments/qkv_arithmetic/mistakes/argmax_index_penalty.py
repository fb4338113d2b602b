# Ties broken by subtracting a small multiple of the key index before argmax (or, alike, by treating scores within a
# tolerance as tied): a later key that is better by less than the penalty loses to an earlier one.
HINT = "A tie means exactly equal scores: a later key whose score is higher by even the smallest amount must win. Do not subtract an index penalty or compare within a tolerance; torch.argmax already returns the first maximal index."


def argmax_attention(Q, K, V):
    scores = attention_scores(Q, K)
    penalty = 1e-6 * torch.arange(scores.shape[-1], dtype=scores.dtype)
    best = (scores - penalty).argmax(dim=-1, keepdim=True)
    return torch.take_along_dim(V, best, dim=-2)
