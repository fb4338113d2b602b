# torch.topk(scores, 1) for the best key: its choice among tied keys is not specified; it happens to return the
# lowest index when two keys tie, but not when three or more do.
HINT = "When three or more keys tie for the highest score the lowest key index must win: torch.topk does not promise which tied index it returns; use argmax (the first maximal index)."


def argmax_attention(Q, K, V):
    best = attention_scores(Q, K).topk(1, dim=-1).indices
    return torch.take_along_dim(V, best, dim=-2)
