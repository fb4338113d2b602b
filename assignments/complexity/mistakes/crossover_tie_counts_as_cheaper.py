# ruff: noqa: F821
# (appended to the reference before it runs, so the reference's functions are in scope)
HINT = "When the two costs are exactly equal the linear form is not yet cheaper: the crossover needs strictly fewer MACs."


def crossover_length(D, M, degree=2):
    N = 1
    while not linear_attention_macs(N, D, M, degree) <= softmax_attention_macs(N, N, D, M):
        N += 1
    return N
