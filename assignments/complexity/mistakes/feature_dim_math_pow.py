import math

HINT = "Counts are ints: math.pow returns a float (and rounds large counts); use the integer power D ** degree."


def kernel_feature_dim(D, degree):
    return math.pow(D, degree)
