# A fair alternative in library idioms: torch.softmax, a mask filled with the dtype's most negative
# finite number (as Hugging Face models do), torch's scaled_dot_product_attention with the scale
# passed explicitly, and torch.max(...).indices (the first maximal index) with torch.gather.
import torch.nn.functional


def attention_scores(Q, K, scale=1.0):
    return torch.matmul(Q, K.transpose(-2, -1)) * scale


def softmax(x, dim=-1):
    return torch.softmax(x, dim=dim)


def attention_weights(Q, K, scale=1.0, causal=False):
    scores = attention_scores(Q, K, scale)
    if causal:
        T = scores.shape[-1]
        keep = torch.tril(torch.ones(T, T, dtype=torch.bool))
        scores = scores.masked_fill(~keep, torch.finfo(scores.dtype).min)
    return torch.softmax(scores, dim=-1)


def softmax_attention(Q, K, V, scale=1.0, causal=False):
    return torch.nn.functional.scaled_dot_product_attention(Q, K, V, is_causal=causal, scale=scale)


def argmax_attention(Q, K, V):
    best = torch.max(attention_scores(Q, K), dim=-1).indices
    index = best.unsqueeze(-1).expand(*best.shape, V.shape[-1])
    return torch.gather(V.expand(*best.shape[:-1], *V.shape[-2:]), -2, index)
