HINT = "causal_linear_attention must apply the `feature_map` it is given; yours always uses elu(x) + 1."


def causal_linear_attention(Q, K, V, feature_map=elu_feature_map, eps=1e-6):
    phi_q, phi_k = elu_feature_map(Q), elu_feature_map(K)
    S = torch.cumsum(phi_k.unsqueeze(-1) * V.unsqueeze(-2), dim=-3)
    Z = torch.cumsum(phi_k, dim=-2)
    numerator = (phi_q.unsqueeze(-2) @ S).squeeze(-2)
    return numerator / ((phi_q * Z).sum(dim=-1, keepdim=True) + eps)
