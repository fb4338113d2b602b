# ruff: noqa: F821
# (appended to the reference before it runs, so the reference's functions are in scope)
# A fair alternative: doubling then bisection on the exact integer cost comparison.


def crossover_length(D, M, degree=2):
    def cheaper(N):
        return linear_attention_macs(N, D, M, degree) < softmax_attention_macs(N, N, D, M)

    high = 1
    while not cheaper(high):
        high *= 2
    low = high // 2  # not cheaper (or 0)
    while high - low > 1:
        mid = (low + high) // 2
        if cheaper(mid):
            high = mid
        else:
            low = mid
    return high
