# Chunks of an odd size (37), einsum everywhere, state updated in place; the quadratic form by explicit loops.


def causal_linear_attention(Q, K, V, feature_map=elu_feature_map, eps=1e-6):
    chunk = 37
    phi_q, phi_k = feature_map(Q), feature_map(K)
    S = torch.zeros(*phi_k.shape[:-2], phi_k.shape[-1], V.shape[-1], dtype=V.dtype)
    Z = torch.zeros(*phi_k.shape[:-2], phi_k.shape[-1], dtype=V.dtype)
    pieces = []
    for start in range(0, Q.shape[-2], chunk):
        q, k, v = (X[..., start:start + chunk, :] for X in (phi_q, phi_k, V))
        n = q.shape[-2]
        weights = torch.einsum("...ic,...jc->...ij", q, k) * torch.tril(torch.ones(n, n, dtype=V.dtype))
        numerator = torch.einsum("...ic,...cm->...im", q, S) + torch.einsum("...ij,...jm->...im", weights, v)
        denominator = torch.einsum("...ic,...c->...i", q, Z) + weights.sum(dim=-1)
        pieces.append(numerator / (denominator[..., None] + eps))
        S += torch.einsum("...jc,...jm->...cm", k, v)
        Z += k.sum(dim=-2)
    return torch.cat(pieces, dim=-2)


def causal_kernel_attention(Q, K, V, feature_map=elu_feature_map):
    phi_q, phi_k = feature_map(Q), feature_map(K)
    out = torch.empty(*phi_q.shape[:-1], V.shape[-1], dtype=V.dtype)
    for i in range(Q.shape[-2]):
        weights = torch.einsum("...c,...jc->...j", phi_q[..., i, :], phi_k[..., : i + 1, :])
        out[..., i, :] = torch.einsum("...j,...jm->...m", weights, V[..., : i + 1, :]) / weights.sum(dim=-1, keepdim=True)
    return out
