import math

HINT = "Count the explicit feature map phi(x) = x outer x ... flattened, with one entry per ordered choice of coordinates (x_1 x_2 and x_2 x_1 are separate entries)."


def kernel_feature_dim(D, degree):
    return math.comb(D + degree - 1, degree)
