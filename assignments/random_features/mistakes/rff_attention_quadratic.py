HINT = "rff_attention builds the N_q x N_k similarity matrix; sum phi(k_j) v_j^T over the keys first so memory stays linear in N."


def rff_attention(Q, K, V, W):
    similarity = approx_softmax_kernel(Q, K, W)
    return (similarity @ V) / similarity.sum(dim=-1, keepdim=True)
