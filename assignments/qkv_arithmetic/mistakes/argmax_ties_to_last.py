HINT = "When several keys share the highest score, the lowest key index should win; yours picks a later one."


def argmax_attention(Q, K, V):
    scores = attention_scores(Q, K)
    T_k = scores.shape[-1]
    best = (T_k - 1) - scores.flip(-1).argmax(dim=-1, keepdim=True)
    return torch.take_along_dim(V, best, dim=-2)
