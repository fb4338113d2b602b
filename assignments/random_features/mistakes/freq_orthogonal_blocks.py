# Orthogonal random features in the style of Performer (FAVOR+): rows come in blocks of D that are
# exactly orthogonal (from a QR factorisation), each rescaled by the length of an independent
# Gaussian vector. Every row on its own is N(0, I/sigma2), but the rows are not independent.
HINT = "The rows must be independent draws; yours are orthogonalised in blocks (orthogonal random features), which the handout's i.i.d. law does not allow."


def sample_frequencies(D, num_features, generator=None, dtype=torch.float64):
    blocks = []
    for _ in range(-(-num_features // D)):
        square = torch.randn(D, D, generator=generator, dtype=torch.float64)
        q, r = torch.linalg.qr(square)
        blocks.append((q * torch.sign(torch.diagonal(r))).T)  # signs fixed: a uniformly random rotation
    directions = torch.cat(blocks)[:num_features]
    lengths = torch.randn(num_features, D, generator=generator, dtype=torch.float64).norm(dim=1, keepdim=True)
    return (lengths * directions / math.sqrt(_sigma2(D))).to(dtype)
