# The scaling of softmax_kernel through an integer square root: right only when D is a perfect square.
HINT = "softmax_kernel divides by sqrt(D) exactly: an integer square root (math.isqrt, int(D ** 0.5)) is wrong unless D is a perfect square."


def softmax_kernel(Q, K):
    return torch.exp(Q @ K.mT / math.isqrt(Q.shape[-1]))
