# An einsum written for one sequence ("td,od->to"): it refuses inputs with leading batch dimensions.
HINT = "qkv must accept H with any number of leading batch dimensions (..., T, d_in); an einsum or torch.mm written for a 2-D H does not."


def qkv(H, W_q, W_k, W_v):
    return tuple(torch.einsum("td,od->to", H, W) for W in (W_q, W_k, W_v))
