# The running sums kept by recurrent_step itself (a module global; a mutable default argument behaves the same): the
# state it is given is only checked against None, so it continues from whatever it last returned, which is right only
# while one sequence is fed in order.
HINT = "recurrent_step must continue from the state (S, Z) it is given, not from sums it kept itself (in a global or a default argument): several sequences may be decoded together, each with its own state, and a step may start from any state."

_RUNNING = None


def recurrent_step(state, q, k, v, feature_map=elu_feature_map, eps=1e-6):
    global _RUNNING
    phi_q, phi_k = feature_map(q), feature_map(k)
    S, Z = phi_k.unsqueeze(-1) * v.unsqueeze(-2), phi_k
    if state is not None and _RUNNING is not None:
        S, Z = _RUNNING[0] + S, _RUNNING[1] + Z
    _RUNNING = (S, Z)
    numerator = (phi_q.unsqueeze(-2) @ S).squeeze(-2)
    return numerator / ((phi_q * Z).sum(dim=-1, keepdim=True) + eps), (S, Z)
