# elu alone can be negative, so weights and denominators can be negative or zero.
# The other functions are redefined only so that their default feature map is this one.
_reference_kernel, _reference_linear, _reference_step = causal_kernel_attention, causal_linear_attention, recurrent_step
HINT = "The feature map is elu(x) + 1, which is positive; elu(x) alone is negative for x < 0."


def elu_feature_map(X):
    return torch.nn.functional.elu(X)


def causal_kernel_attention(Q, K, V, feature_map=elu_feature_map):
    return _reference_kernel(Q, K, V, feature_map)


def causal_linear_attention(Q, K, V, feature_map=elu_feature_map, eps=1e-6):
    return _reference_linear(Q, K, V, feature_map, eps)


def recurrent_step(state, q, k, v, feature_map=elu_feature_map, eps=1e-6):
    return _reference_step(state, q, k, v, feature_map, eps)
