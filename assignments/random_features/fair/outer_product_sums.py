# A fair alternative: rff_attention writes its sums over the keys literally, as sums of outer products phi(k_j) v_j^T,
# and its numerators as products summed over the features: intermediates of N x 2F x M, linear in the sequence length,
# never an N_q x N_k matrix.


def rff_attention(Q, K, V, W):
    phi_q = _weighted_features(Q, W)
    phi_k = _weighted_features(K, W)
    S = (phi_k.unsqueeze(-1) * V.unsqueeze(-2)).sum(dim=-3)
    z = phi_k.sum(dim=-2)
    numerator = (phi_q.unsqueeze(-1) * S.unsqueeze(-3)).sum(dim=-2)
    return numerator / (phi_q * z.unsqueeze(-2)).sum(dim=-1, keepdim=True)
