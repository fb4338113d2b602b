# The mask keeps j >= i (the future and the token itself) instead of j <= i.
HINT = "The causal mask must zero the weights of keys j > i (above the diagonal), keeping j <= i."


def causal_kernel_attention(Q, K, V, feature_map=elu_feature_map):
    sim = (feature_map(Q) @ feature_map(K).mT).triu()
    return (sim @ V) / sim.sum(dim=-1, keepdim=True)
