# Prefix sums and their products with the queries written as broadcasts and sums, as in numpy
# tutorials: the running sums of phi(k_j) v_j^T (N x C x M numbers) and, at the same time, their
# products with phi(q_i) before the sum over C (N x C x M more): the most memory of the textbook forms.


def causal_linear_attention(Q, K, V, feature_map=elu_feature_map, eps=1e-6):
    phi_q, phi_k = feature_map(Q), feature_map(K)
    S = (phi_k[..., :, :, None] * V[..., :, None, :]).cumsum(dim=-3)
    Z = phi_k.cumsum(dim=-2)
    numerator = (phi_q[..., :, :, None] * S).sum(dim=-2)
    denominator = (phi_q * Z).sum(dim=-1, keepdim=True)
    return numerator / (denominator + eps)
