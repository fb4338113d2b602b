# The max-subtraction of a stable softmax applied to the kernel: harmless once normalised, but the
# kernel itself must be exactly exp(q.k / sqrt(D)).
HINT = "softmax_kernel is the unnormalised similarity exp(Q K^T / sqrt(D)) itself; subtracting the row maximum (as a stable softmax does) changes it."


def softmax_kernel(Q, K):
    scores = Q @ K.mT / math.sqrt(Q.shape[-1])
    return torch.exp(scores - scores.amax(dim=-1, keepdim=True))
