# Each step uses only the current token: the state is replaced instead of accumulated.
HINT = "recurrent_step must add phi(k) v^T and phi(k) to the incoming state (S, Z), not replace it."


def recurrent_step(state, q, k, v, feature_map=elu_feature_map, eps=1e-6):
    phi_q, phi_k = feature_map(q), feature_map(k)
    S, Z = phi_k.unsqueeze(-1) * v.unsqueeze(-2), phi_k
    numerator = (phi_q.unsqueeze(-2) @ S).squeeze(-2)
    return numerator / ((phi_q * Z).sum(dim=-1, keepdim=True) + eps), (S, Z)
