# The dim argument is accepted but the last axis is always used.
HINT = "softmax must normalise along `dim`; yours always uses the last axis."


def softmax(x, dim=-1):
    shifted = x - x.amax(dim=-1, keepdim=True)
    e = torch.exp(shifted)
    return e / e.sum(dim=-1, keepdim=True)
