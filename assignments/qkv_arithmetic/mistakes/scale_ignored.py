HINT = "The scores ignore `scale`: multiply q_i . k_j by the scale argument."


def attention_scores(Q, K, scale=1.0):
    return Q @ K.mT
