HINT = "rff_attention must divide by the sum of the similarities over the keys, as softmax does."


def rff_attention(Q, K, V, W):
    return _weighted_features(Q, W) @ (_weighted_features(K, W).mT @ V)
