# S_i and Z_i sum only the keys j < i: each token leaves itself out.
HINT = "The prefix sums S_i and Z_i must include token i itself (j <= i), not only the tokens before it."


def causal_linear_attention(Q, K, V, feature_map=elu_feature_map, eps=1e-6):
    phi_q, phi_k = feature_map(Q), feature_map(K)
    kv = phi_k.unsqueeze(-1) * V.unsqueeze(-2)
    S = kv.cumsum(dim=-3) - kv
    Z = phi_k.cumsum(dim=-2) - phi_k
    numerator = (phi_q.unsqueeze(-2) @ S).squeeze(-2)
    return numerator / ((phi_q * Z).sum(dim=-1, keepdim=True) + eps)
