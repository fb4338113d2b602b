# elu_feature_map itself is right, but the defaults name torch's elu, which lacks the + 1.
import torch.nn.functional

_reference_kernel, _reference_linear, _reference_step = causal_kernel_attention, causal_linear_attention, recurrent_step
HINT = "Check the default `feature_map`: it is elu_feature_map (elu(x) + 1), not torch's elu."


def causal_kernel_attention(Q, K, V, feature_map=torch.nn.functional.elu):
    return _reference_kernel(Q, K, V, feature_map)


def causal_linear_attention(Q, K, V, feature_map=torch.nn.functional.elu, eps=1e-6):
    return _reference_linear(Q, K, V, feature_map, eps)


def recurrent_step(state, q, k, v, feature_map=torch.nn.functional.elu, eps=1e-6):
    return _reference_step(state, q, k, v, feature_map, eps)
