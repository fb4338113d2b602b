# ruff: noqa: F821
# (appended to the reference before it runs, so the reference's functions are in scope)
HINT = "A float quotient rounds: for large sizes it can land exactly on an integer it is not. Keep the arithmetic in integers (//)."


def crossover_length(D, M, degree=2):
    F = kernel_feature_dim(D, degree)
    return int(F * (2 * M + 1) / (D + M)) + 1
