# The numerator phi(q_i)^T S_i without dividing by phi(q_i)^T Z_i + eps.
HINT = "The output must be normalised: divide phi(q_i)^T S_i by phi(q_i)^T Z_i + eps, so the weights of each row sum to 1."


def causal_linear_attention(Q, K, V, feature_map=elu_feature_map, eps=1e-6):
    phi_q, phi_k = feature_map(Q), feature_map(K)
    S = (phi_k.unsqueeze(-1) * V.unsqueeze(-2)).cumsum(dim=-3)
    return (phi_q.unsqueeze(-2) @ S).squeeze(-2)
