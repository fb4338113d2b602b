# ruff: noqa: F821
# (appended to the reference before it runs, so the reference's functions are in scope)
import math

HINT = "A float quotient rounds: for large sizes it can land exactly on an integer it is not. Keep the arithmetic in integers (//)."


def crossover_length(D, M, degree=2):
    F = kernel_feature_dim(D, degree)
    N = math.ceil(F * (2 * M + 1) / (D + M))
    return N + 1 if N * (D + M) == F * (2 * M + 1) else N
