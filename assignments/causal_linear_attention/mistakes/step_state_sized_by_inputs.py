# The empty state sized from the inputs (C x M) rather than from the features: fine for elu(x) + 1,
# which keeps the width, but not for a feature map that changes it.
HINT = "The state's first axis is the number of features phi produces, which need not be C: size S and Z from phi(k), not from k."


def recurrent_step(state, q, k, v, feature_map=elu_feature_map, eps=1e-6):
    phi_q, phi_k = feature_map(q), feature_map(k)
    if state is None:
        state = (torch.zeros(*k.shape, v.shape[-1], dtype=v.dtype), torch.zeros(*k.shape, dtype=v.dtype))
    S = state[0] + phi_k.unsqueeze(-1) * v.unsqueeze(-2)
    Z = state[1] + phi_k
    numerator = (phi_q.unsqueeze(-2) @ S).squeeze(-2)
    return numerator / ((phi_q * Z).sum(dim=-1, keepdim=True) + eps), (S, Z)
