# The denominator clamped from below at eps instead of shifted by eps.
HINT = "The denominator is phi(q_i)^T Z_i + eps (eps added), not max(phi(q_i)^T Z_i, eps)."


def causal_linear_attention(Q, K, V, feature_map=elu_feature_map, eps=1e-6):
    phi_q, phi_k = feature_map(Q), feature_map(K)
    S = torch.cumsum(phi_k.unsqueeze(-1) * V.unsqueeze(-2), dim=-3)
    Z = torch.cumsum(phi_k, dim=-2)
    numerator = (phi_q.unsqueeze(-2) @ S).squeeze(-2)
    return numerator / (phi_q * Z).sum(dim=-1, keepdim=True).clamp(min=eps)
