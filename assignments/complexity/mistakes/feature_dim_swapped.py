HINT = "Check which of D and degree is the base and which the exponent of the feature dimension."


def kernel_feature_dim(D, degree):
    return degree**D
