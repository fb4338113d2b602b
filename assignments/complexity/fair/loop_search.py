# ruff: noqa: F821
# (appended to the reference before it runs, so the reference's functions are in scope)
# A fair alternative: the crossover found by trying N = 1, 2, 3, ... with the cost functions.


def crossover_length(D, M, degree=2):
    N = 1
    while linear_attention_macs(N, D, M, degree) >= softmax_attention_macs(N, N, D, M):
        N += 1
    return N
