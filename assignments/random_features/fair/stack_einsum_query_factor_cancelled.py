# A fair alternative: the feature map by stacking, einsum contractions, and no query factor in
# rff_attention (it multiplies numerator and denominator alike, so it cancels).


def random_feature_map(X, W):
    angles = torch.einsum("...nd,fd->...nf", X, W)
    stacked = torch.stack([angles.sin(), angles.cos()], dim=-2)  # (..., N, 2, F): sines row, then cosines row
    return stacked.flatten(-2) * (1.0 / W.shape[0]) ** 0.5


def softmax_kernel(Q, K):
    return torch.einsum("...id,...jd->...ij", Q, K).div(Q.shape[-1] ** 0.5).exp()


def approx_softmax_kernel(Q, K, W):
    sigma2 = Q.shape[-1] ** 0.5
    gauss = torch.einsum("...if,...jf->...ij", random_feature_map(Q, W), random_feature_map(K, W))
    return Q.pow(2).sum(-1).div(2 * sigma2).exp().unsqueeze(-1) * gauss * K.pow(2).sum(-1).div(2 * sigma2).exp().unsqueeze(-2)


def rff_attention(Q, K, V, W):
    sigma2 = K.shape[-1] ** 0.5
    phi_q = random_feature_map(Q, W)
    phi_k = random_feature_map(K, W) * K.pow(2).sum(-1, keepdim=True).div(2 * sigma2).exp()
    kv = torch.einsum("...nf,...nm->...fm", phi_k, V)
    z = phi_k.sum(-2)
    return torch.einsum("...nf,...fm->...nm", phi_q, kv) / torch.einsum("...nf,...f->...n", phi_q, z).unsqueeze(-1)
