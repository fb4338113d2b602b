import math

HINT = "math.pow computes in floats, which hold 53 significant bits: int(math.pow(D, degree)) loses the last digits of large counts; use D ** degree."


def kernel_feature_dim(D, degree):
    return int(math.pow(D, degree))
