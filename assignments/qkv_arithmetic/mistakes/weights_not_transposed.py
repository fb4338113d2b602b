HINT = "With tokens as rows, q_i = W_q h_i reads Q = H @ W_q.T; multiplying by W_q without the transpose applies the wrong map."


def qkv(H, W_q, W_k, W_v):
    return H @ W_q, H @ W_k, H @ W_v
