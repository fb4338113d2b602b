HINT = "The explicit feature map of (q . k) ** degree is longer than the input: it holds every product of `degree` coordinates."


def kernel_feature_dim(D, degree):
    return D
