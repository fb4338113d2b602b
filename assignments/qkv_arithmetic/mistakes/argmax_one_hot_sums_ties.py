# Hard attention as a one-hot mask of the maximal scores: tied keys all get weight 1.
HINT = "With tied top scores only the lowest key index counts; a mask of every maximal score adds (or averages) the tied values."


def argmax_attention(Q, K, V):
    scores = attention_scores(Q, K)
    hard = (scores == scores.amax(dim=-1, keepdim=True)).to(V.dtype)
    return hard @ V
