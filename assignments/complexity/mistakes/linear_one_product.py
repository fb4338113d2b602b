# ruff: noqa: F821
# (appended to the reference before it runs, so the reference's functions are in scope)
HINT = "The numerator takes two products: phi(K)^T V first, then phi(Q) times that result; count both."


def linear_attention_macs(N, D, M, degree=2):
    F = kernel_feature_dim(D, degree)
    return N * F * M + N * F
