# The running sums start as torch.zeros (float32 by default) and are added to in place, so the state stays float32
# for float64 inputs; each step's output is computed from that float32 state.
HINT = "recurrent_step's state is in the inputs' dtype: give torch.zeros dtype=q.dtype (its default is float32) and never call .float() on S or Z."


def recurrent_step(state, q, k, v, feature_map=elu_feature_map, eps=1e-6):
    phi_q, phi_k = feature_map(q), feature_map(k)
    if state is None:
        S = torch.zeros(*phi_k.shape, v.shape[-1])
        Z = torch.zeros(*phi_k.shape)
    else:
        S, Z = state[0].clone(), state[1].clone()
    S += phi_k.unsqueeze(-1) * v.unsqueeze(-2)
    Z += phi_k
    out = (phi_q.unsqueeze(-2) @ S.to(phi_q.dtype)).squeeze(-2) / ((phi_q * Z.to(phi_q.dtype)).sum(dim=-1, keepdim=True) + eps)
    return out, (S, Z)
