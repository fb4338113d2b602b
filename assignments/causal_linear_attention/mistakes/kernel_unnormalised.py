HINT = "Each row of causal_kernel_attention is a weighted average: divide by the sum of the row's weights over j <= i."


def causal_kernel_attention(Q, K, V, feature_map=elu_feature_map):
    return (feature_map(Q) @ feature_map(K).mT).tril() @ V
