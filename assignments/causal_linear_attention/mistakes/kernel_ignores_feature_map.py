HINT = "causal_kernel_attention must apply the `feature_map` it is given; yours always uses elu(x) + 1."


def causal_kernel_attention(Q, K, V, feature_map=elu_feature_map):
    sim = (elu_feature_map(Q) @ elu_feature_map(K).mT).tril()
    return (sim @ V) / sim.sum(dim=-1, keepdim=True)
