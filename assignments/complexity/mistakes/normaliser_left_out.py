# ruff: noqa: F821
# (appended to the reference before it runs, so the reference's functions are in scope)
HINT = "The normaliser phi(Q) . sum_j phi(K_j) is a matrix product as well: its multiply-accumulates count."


def linear_attention_macs(N, D, M, degree=2):
    F = kernel_feature_dim(D, degree)
    return 2 * N * F * M
