HINT = "The kernel width is sigma2 = sqrt(D) (so that the product of the three factors is exp(q.k/sqrt(D))), not D."


def _sigma2(D):
    return float(D)
