HINT = "D is the size of the last axis of Q; Q.shape[1] is the number of tokens (or a batch dimension) when Q has more than two axes."


def softmax_kernel(Q, K):
    return torch.exp(Q @ K.mT / math.sqrt(Q.shape[1]))
