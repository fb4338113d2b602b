# The textbook prefix sums with cumsum: holds N x C x M numbers, fine for the small C, M of the tests.


def causal_linear_attention(Q, K, V, feature_map=elu_feature_map, eps=1e-6):
    phi_q, phi_k = feature_map(Q), feature_map(K)
    S = torch.cumsum(phi_k[..., :, :, None] * V[..., :, None, :], dim=-3)
    Z = torch.cumsum(phi_k, dim=-2)
    numerator = torch.einsum("...nc,...ncm->...nm", phi_q, S)
    denominator = torch.einsum("...nc,...nc->...n", phi_q, Z)
    return numerator / (denominator[..., None] + eps)
