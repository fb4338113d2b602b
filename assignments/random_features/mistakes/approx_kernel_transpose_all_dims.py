HINT = "With leading batch dimensions, .T reverses all of them; transpose only the last two axes (.mT or transpose(-2, -1))."


def approx_softmax_kernel(Q, K, W):
    right = _weighted_features(K, W)
    return _weighted_features(Q, W) @ right.permute(*reversed(range(right.dim())))
