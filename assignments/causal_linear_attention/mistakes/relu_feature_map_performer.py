# Performer's generalised ReLU kernel, relu(x) + 0.001, in place of elu(x) + 1.
_reference_kernel, _reference_linear, _reference_step = causal_kernel_attention, causal_linear_attention, recurrent_step
HINT = "The feature map is elu(x) + 1 (smooth, at least 0 and equal to x + 1 for x > 0), not relu(x) plus a small constant."


def elu_feature_map(X):
    return torch.relu(X) + 1e-3


def causal_kernel_attention(Q, K, V, feature_map=elu_feature_map):
    return _reference_kernel(Q, K, V, feature_map)


def causal_linear_attention(Q, K, V, feature_map=elu_feature_map, eps=1e-6):
    return _reference_linear(Q, K, V, feature_map, eps)


def recurrent_step(state, q, k, v, feature_map=elu_feature_map, eps=1e-6):
    return _reference_step(state, q, k, v, feature_map, eps)
