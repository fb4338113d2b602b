# The output row phi(q)^T S is computed as a (1, M) row and squeezed with a bare .squeeze(), which also drops a batch or
# head axis of size 1 and a single value column.
HINT = "A bare .squeeze() drops every axis of size 1: with one batch, one head or one value column recurrent_step's output loses that axis; name the axis (.squeeze(-2))."


def recurrent_step(state, q, k, v, feature_map=elu_feature_map, eps=1e-6):
    phi_q, phi_k = feature_map(q), feature_map(k)
    S, Z = phi_k.unsqueeze(-1) * v.unsqueeze(-2), phi_k
    if state is not None:
        S, Z = state[0] + S, state[1] + Z
    numerator = (phi_q.unsqueeze(-2) @ S).squeeze()
    denominator = (phi_q * Z).sum(dim=-1, keepdim=True).squeeze()
    return numerator / (denominator.unsqueeze(-1) + eps), (S, Z)
