"""Resource abuse: argmax_attention spins forever."""


def argmax_attention(Q, K, V):
    n = 0
    while True:
        n += 1
