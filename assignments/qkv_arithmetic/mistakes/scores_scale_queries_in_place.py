# Q *= scale before the product: the scores are right, but the caller's Q is scaled in place (unseen at scale 1).
HINT = "attention_scores must leave Q as it was: Q *= scale writes into the tensor passed in; compute scale * (Q @ K.mT)."


def attention_scores(Q, K, scale=1.0):
    Q *= scale
    return Q @ K.mT
