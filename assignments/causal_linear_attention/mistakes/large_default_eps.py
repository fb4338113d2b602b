# A default eps of 1e-2 instead of 1e-6 visibly shrinks the first outputs.
_correct_linear = causal_linear_attention
_correct_step = recurrent_step
HINT = "Check the default value of eps: the handout's signature gives eps=1e-6."


def causal_linear_attention(Q, K, V, feature_map=elu_feature_map, eps=1e-2):
    return _correct_linear(Q, K, V, feature_map, eps)


def recurrent_step(state, q, k, v, feature_map=elu_feature_map, eps=1e-2):
    return _correct_step(state, q, k, v, feature_map, eps)
