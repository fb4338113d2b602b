# One query at a time against all keys j <= i: never an N x N tensor, but time grows as N^2.
HINT = "causal_linear_attention must take time linear in N: carry the running sums S_i and Z_i from one token to the next instead of summing over all earlier keys for every query."


def causal_linear_attention(Q, K, V, feature_map=elu_feature_map, eps=1e-6):
    phi_q, phi_k = feature_map(Q), feature_map(K)
    out = torch.empty(*phi_q.shape[:-1], V.shape[-1], dtype=V.dtype)
    for i in range(phi_q.shape[-2]):
        weights = phi_k[..., : i + 1, :] @ phi_q[..., i, :, None]
        out[..., i, :] = (weights.mT @ V[..., : i + 1, :]).squeeze(-2) / (weights.sum(dim=-2) + eps)
    return out
