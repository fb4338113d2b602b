# The small eps that linear-attention libraries add to their normaliser, carried over to rff_attention.
HINT = "rff_attention divides by exactly phi(q)^T sum_j phi(k_j): the handout's formula has no eps."


def rff_attention(Q, K, V, W):
    phi_q, phi_k = _weighted_features(Q, W), _weighted_features(K, W)
    return (phi_q @ (phi_k.mT @ V)) / (phi_q @ phi_k.sum(dim=-2, keepdim=True).mT + 1e-6)
