# The scale treated as a temperature (scores / scale) instead of a factor.
HINT = "The scores are scale * q_i . k_j: multiply by `scale`, do not divide by it."


def attention_scores(Q, K, scale=1.0):
    return (Q @ K.mT) / scale
