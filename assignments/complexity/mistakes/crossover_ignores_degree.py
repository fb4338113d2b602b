# ruff: noqa: F821
# (appended to the reference before it runs, so the reference's functions are in scope)
HINT = "crossover_length must pass its `degree` on to the linear cost; yours always uses the default degree."


def crossover_length(D, M, degree=2):
    F = kernel_feature_dim(D, 2)
    return F * (2 * M + 1) // (D + M) + 1
