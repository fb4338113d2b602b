# ruff: noqa: F821
# (appended to the reference before it runs, so the reference's functions are in scope)
HINT = "When the two costs are exactly equal the linear form is not yet cheaper: the crossover needs strictly fewer MACs."


def crossover_length(D, M, degree=2):
    F = kernel_feature_dim(D, degree)
    return -(-F * (2 * M + 1) // (D + M))
