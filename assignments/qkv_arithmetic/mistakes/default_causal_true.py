# A decoder-style default: attention is causal unless told otherwise.
_reference_weights = attention_weights
HINT = "Check the default of `causal`: the handout's signatures give causal=False (every query sees every key)."


def attention_weights(Q, K, scale=1.0, causal=True):
    return _reference_weights(Q, K, scale, causal)


def softmax_attention(Q, K, V, scale=1.0, causal=True):
    return attention_weights(Q, K, scale, causal) @ V
