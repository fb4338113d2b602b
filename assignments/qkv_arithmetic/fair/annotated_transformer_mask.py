# A fair alternative in the style of the Annotated Transformer: a 0/1 "subsequent" mask and
# masked_fill(mask == 0, -1e9), whose weights underflow to exactly 0 after the softmax.


def attention_weights(Q, K, scale=1.0, causal=False):
    scores = torch.matmul(Q, K.transpose(-2, -1)) * scale
    if causal:
        T = scores.size(-1)
        mask = torch.triu(torch.ones(T, T), diagonal=1) == 0
        scores = scores.masked_fill(mask == 0, -1e9)
    return scores.softmax(dim=-1)
