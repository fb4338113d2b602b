# F.elu(X, inplace=True) to save a copy: the feature map writes elu(X) into the caller's tensor (Q and K of the attention).
# The other functions are redefined only so that their default feature map is this one.
_reference_kernel, _reference_linear, _reference_step = causal_kernel_attention, causal_linear_attention, recurrent_step
HINT = "elu_feature_map must leave X as it was: elu(X, inplace=True) writes into the tensor passed in; return F.elu(X) + 1."


def elu_feature_map(X):
    return torch.nn.functional.elu(X, inplace=True) + 1


def causal_kernel_attention(Q, K, V, feature_map=elu_feature_map):
    return _reference_kernel(Q, K, V, feature_map)


def causal_linear_attention(Q, K, V, feature_map=elu_feature_map, eps=1e-6):
    return _reference_linear(Q, K, V, feature_map, eps)


def recurrent_step(state, q, k, v, feature_map=elu_feature_map, eps=1e-6):
    return _reference_step(state, q, k, v, feature_map, eps)
