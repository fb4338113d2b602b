# The running sums run along the feature axis instead of the sequence axis.
HINT = "The prefix sums run over the sequence (the token axis, -2 of Q and K), not over the features."


def causal_linear_attention(Q, K, V, feature_map=elu_feature_map, eps=1e-6):
    phi_q, phi_k = feature_map(Q), feature_map(K)
    S = (phi_k.unsqueeze(-1) * V.unsqueeze(-2)).cumsum(dim=-2)
    Z = phi_k.cumsum(dim=-1)
    numerator = (phi_q.unsqueeze(-2) @ S).squeeze(-2)
    return numerator / ((phi_q * Z).sum(dim=-1, keepdim=True) + eps)
