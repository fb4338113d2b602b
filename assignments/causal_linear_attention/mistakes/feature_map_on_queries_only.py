# phi applied to the queries but the keys used raw.
HINT = "The feature map goes on both sides: the similarity is phi(q_i) . phi(k_j), so the keys need phi too."


def causal_linear_attention(Q, K, V, feature_map=elu_feature_map, eps=1e-6):
    phi_q, phi_k = feature_map(Q), K
    S = (phi_k.unsqueeze(-1) * V.unsqueeze(-2)).cumsum(dim=-3)
    Z = phi_k.cumsum(dim=-2)
    numerator = (phi_q.unsqueeze(-2) @ S).squeeze(-2)
    return numerator / ((phi_q * Z).sum(dim=-1, keepdim=True) + eps)
