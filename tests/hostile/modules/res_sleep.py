"""Resource abuse: argmax_attention sleeps forever."""

import time


def argmax_attention(Q, K, V):
    time.sleep(10**6)
