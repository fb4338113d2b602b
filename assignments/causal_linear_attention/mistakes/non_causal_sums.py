# Every query uses the sums over all N keys (non-causal linear attention): only the last row is right.
HINT = "Query i may only use keys j <= i; summing phi(k_j) v_j^T over the whole sequence lets tokens see the future."


def causal_linear_attention(Q, K, V, feature_map=elu_feature_map, eps=1e-6):
    phi_q, phi_k = feature_map(Q), feature_map(K)
    S = phi_k.mT @ V
    Z = phi_k.sum(dim=-2)
    return (phi_q @ S) / ((phi_q @ Z.unsqueeze(-1)) + eps)
