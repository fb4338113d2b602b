HINT = "softmax_kernel must divide the dot products by sqrt(D) before the exponential."


def softmax_kernel(Q, K):
    return torch.exp(Q @ K.mT)
