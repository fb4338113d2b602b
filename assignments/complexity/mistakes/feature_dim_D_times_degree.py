HINT = "The feature map of (q . k) ** degree has one entry per ordered choice of `degree` coordinates; the count grows faster than D * degree."


def kernel_feature_dim(D, degree):
    return D * degree
