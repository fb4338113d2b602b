HINT = "recurrent_step divides by phi(q)^T Z + eps, exactly as causal_linear_attention does; yours leaves eps out."


def recurrent_step(state, q, k, v, feature_map=elu_feature_map, eps=1e-6):
    phi_q, phi_k = feature_map(q), feature_map(k)
    S, Z = phi_k.unsqueeze(-1) * v.unsqueeze(-2), phi_k
    if state is not None:
        S, Z = state[0] + S, state[1] + Z
    numerator = (phi_q.unsqueeze(-2) @ S).squeeze(-2)
    return numerator / (phi_q * Z).sum(dim=-1, keepdim=True), (S, Z)
