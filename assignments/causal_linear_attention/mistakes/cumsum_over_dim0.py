# cumsum(dim=0) is the token axis only when there are no leading batch dimensions.
HINT = "With leading batch or head dimensions the token axis is not axis 0: sum over the axis counted from the end."


def causal_linear_attention(Q, K, V, feature_map=elu_feature_map, eps=1e-6):
    phi_q, phi_k = feature_map(Q), feature_map(K)
    S = torch.cumsum(phi_k.unsqueeze(-1) * V.unsqueeze(-2), dim=0)
    Z = torch.cumsum(phi_k, dim=0)
    numerator = (phi_q.unsqueeze(-2) @ S).squeeze(-2)
    return numerator / ((phi_q * Z).sum(dim=-1, keepdim=True) + eps)
