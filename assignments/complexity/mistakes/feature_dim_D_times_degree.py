HINT = "The explicit feature map of (q . k) ** degree has one entry per ordered choice of `degree` coordinates (x_1 x_2 and x_2 x_1 are separate entries): D ** degree of them, more than D * degree or the number of distinct monomials."


def kernel_feature_dim(D, degree):
    return D * degree
