import numpy as np

HINT = "A numpy int64 power wraps around silently beyond 2**63 (3**40 is larger); Python's int ** is exact at any size."


def kernel_feature_dim(D, degree):
    return np.int64(D) ** degree
