# The state holds v phi(k)^T, shape (..., M, C): the outputs are right, but S is not the one of the handout.
HINT = "The state S is the sum of outer products phi(k) v^T, of shape (..., C, M); check the order of the outer product."


def recurrent_step(state, q, k, v, feature_map=elu_feature_map, eps=1e-6):
    phi_q, phi_k = feature_map(q), feature_map(k)
    S, Z = v.unsqueeze(-1) * phi_k.unsqueeze(-2), phi_k
    if state is not None:
        S, Z = state[0] + S, state[1] + Z
    numerator = (S @ phi_q.unsqueeze(-1)).squeeze(-1)
    return numerator / ((phi_q * Z).sum(dim=-1, keepdim=True) + eps), (S, Z)
