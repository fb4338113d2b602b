HINT = "When both costs are equal the linear form is not yet strictly cheaper: the crossover must be strictly below."


def crossover_length(D, M, degree=2):
    N = 1
    while not linear_attention_macs(N, D, M, degree) <= softmax_attention_macs(N, N, D, M):
        N += 1
    return N
