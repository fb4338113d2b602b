# K.T reverses every dimension, so it is the transpose of the key matrix only when K is 2-D.
HINT = "With leading batch dimensions, K.T reverses all of them; transpose only the last two axes (K.transpose(-2, -1) or K.mT)."


def attention_scores(Q, K, scale=1.0):
    return scale * (Q @ K.permute(*reversed(range(K.dim()))))
