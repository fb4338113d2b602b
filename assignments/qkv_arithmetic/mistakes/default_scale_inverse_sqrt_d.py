# The convention of torch's scaled_dot_product_attention: scale=None means 1/sqrt(d).
import math

HINT = "Check the default of `scale`: the handout's signatures give scale=1.0 (plain dot products), not 1/sqrt(d)."


def attention_scores(Q, K, scale=None):
    if scale is None:
        scale = 1.0 / math.sqrt(Q.shape[-1])
    return scale * (Q @ K.mT)


def attention_weights(Q, K, scale=None, causal=False):
    scores = attention_scores(Q, K, scale)
    if causal:
        T = scores.shape[-1]
        scores = scores.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
    return softmax(scores, dim=-1)


def softmax_attention(Q, K, V, scale=None, causal=False):
    return attention_weights(Q, K, scale, causal) @ V
