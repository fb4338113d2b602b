# Right values (eps included), but through an N x N matrix: quadratic memory, caught only on a long sequence.
HINT = "causal_linear_attention must never build an N x N matrix; use the prefix sums S_i and Z_i (or chunks with a carried state)."


def causal_linear_attention(Q, K, V, feature_map=elu_feature_map, eps=1e-6):
    sim = (feature_map(Q) @ feature_map(K).mT).tril()
    return (sim @ V) / (sim.sum(dim=-1, keepdim=True) + eps)
