# torch.outer takes 1-D vectors only, so the step fails as soon as q, k, v have batch dimensions.
HINT = "recurrent_step must accept q, k, v with leading batch dimensions (..., C); torch.outer only takes 1-D vectors."


def recurrent_step(state, q, k, v, feature_map=elu_feature_map, eps=1e-6):
    phi_q, phi_k = feature_map(q), feature_map(k)
    S, Z = torch.outer(phi_k, v), phi_k
    if state is not None:
        S, Z = state[0] + S, state[1] + Z
    return (phi_q @ S) / ((phi_q * Z).sum(dim=-1, keepdim=True) + eps), (S, Z)
