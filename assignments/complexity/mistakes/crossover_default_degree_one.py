# ruff: noqa: F821
# (appended to the reference before it runs, so the reference's functions are in scope)
HINT = "Check the default of `degree` in crossover_length: the handout's signature gives degree=2."


def crossover_length(D, M, degree=1):
    F = kernel_feature_dim(D, degree)
    return F * (2 * M + 1) // (D + M) + 1
