# ruff: noqa: F821
# (appended to the reference before it runs, so the reference's functions are in scope)
HINT = "Check the default of `degree` in linear_attention_macs: the handout's signature gives degree=2."


def linear_attention_macs(N, D, M, degree=1):
    F = kernel_feature_dim(D, degree)
    return 2 * N * F * M + N * F
