# The kernel width as an integer square root: right when D is a perfect square (4, 9, 16, 64), wrong otherwise.
HINT = "sigma2 = sqrt(D) exactly (math.sqrt(D) or D ** 0.5): an integer square root (math.isqrt, int(...)) is wrong unless D is a perfect square."


def _sigma2(D):
    return float(math.isqrt(D))
