# The normaliser phi(q) . sum_j phi(k_j) is computed as a column and squeezed with a bare .squeeze(), which also drops
# the query axis when there is one query: the division then broadcasts the wrong way.
HINT = "A bare .squeeze() drops every axis of size 1: with one query the normaliser loses its query axis and divides the wrong entries; keep the axes (keepdim=True, or .squeeze(-1))."


def rff_attention(Q, K, V, W):
    phi_q, phi_k = _weighted_features(Q, W), _weighted_features(K, W)
    normaliser = (phi_q @ phi_k.sum(dim=-2, keepdim=True).mT).squeeze()
    return (phi_q @ (phi_k.mT @ V)) / normaliser.unsqueeze(-1)
