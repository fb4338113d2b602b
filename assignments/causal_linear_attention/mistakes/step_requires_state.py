HINT = "recurrent_step must accept state=None before the first token (start from empty sums)."


def recurrent_step(state, q, k, v, feature_map=elu_feature_map, eps=1e-6):
    phi_q, phi_k = feature_map(q), feature_map(k)
    S, Z = state
    S = S + phi_k.unsqueeze(-1) * v.unsqueeze(-2)
    Z = Z + phi_k
    numerator = (phi_q.unsqueeze(-2) @ S).squeeze(-2)
    return numerator / ((phi_q * Z).sum(dim=-1, keepdim=True) + eps), (S, Z)
