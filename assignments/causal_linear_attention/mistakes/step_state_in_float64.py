# The running sums start as float64 zeros "for precision" (as mistakes/linear_state_in_float64 does in
# causal_linear_attention): right for float64 inputs, but for float32 ones phi(q) (float32) @ S (float64) raises.
HINT = "recurrent_step fails for float32 inputs: start S and Z in the inputs' dtype (torch.zeros(..., dtype=q.dtype)), not in float64."


_reference_step = recurrent_step  # the reference's, above


def recurrent_step(state, q, k, v, feature_map=elu_feature_map, eps=1e-6):
    if state is None:
        phi_k = feature_map(k)
        state = (torch.zeros(*phi_k.shape, v.shape[-1], dtype=torch.float64), torch.zeros(*phi_k.shape, dtype=torch.float64))
    return _reference_step(state, q, k, v, feature_map, eps)
