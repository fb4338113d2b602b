# Z kept as a column (..., C, 1), handy for a matrix product, instead of the handout's (..., C).
HINT = "The state's Z has shape (..., C), one entry per feature; yours keeps a trailing axis of size 1."


def recurrent_step(state, q, k, v, feature_map=elu_feature_map, eps=1e-6):
    phi_q, phi_k = feature_map(q), feature_map(k)
    S, Z = phi_k.unsqueeze(-1) * v.unsqueeze(-2), phi_k.unsqueeze(-1)
    if state is not None:
        S, Z = state[0] + S, state[1] + Z
    numerator = (phi_q.unsqueeze(-2) @ S).squeeze(-2)
    denominator = (phi_q.unsqueeze(-2) @ Z).squeeze(-1)
    return numerator / (denominator + eps), (S, Z)
