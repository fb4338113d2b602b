HINT = "When N*(D+M) equals F*(2M+1) exactly, both costs tie, and a tie is not a crossing."


def crossover_length(D, M, degree=2):
    F = kernel_feature_dim(D, degree)
    return -(-F * (2 * M + 1) // (D + M))
