# eps added to the running key sum Z_i before the product with phi(q_i) (as in some published
# linear-attention code): the denominator gains eps * sum(phi(q_i)) instead of eps.
HINT = "eps goes outside the product: divide by phi(q_i)^T Z_i + eps, not by phi(q_i)^T (Z_i + eps)."


def causal_linear_attention(Q, K, V, feature_map=elu_feature_map, eps=1e-6):
    phi_q, phi_k = feature_map(Q), feature_map(K)
    S = torch.cumsum(phi_k.unsqueeze(-1) * V.unsqueeze(-2), dim=-3)
    Z = torch.cumsum(phi_k, dim=-2)
    numerator = (phi_q.unsqueeze(-2) @ S).squeeze(-2)
    return numerator / (phi_q * (Z + eps)).sum(dim=-1, keepdim=True)
