# ruff: noqa: F821
# (appended to the reference before it runs, so the reference's functions are in scope)
HINT = "Compare with the exact softmax cost softmax_attention_macs(N, N, D, M), not the big-O estimate N^2 max(D, M)."


def crossover_length(D, M, degree=2):
    F = kernel_feature_dim(D, degree)
    return F * (2 * M + 1) // max(D, M) + 1
