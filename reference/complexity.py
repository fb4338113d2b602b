"""Problem 3: the cost of attention, counted in multiply-accumulates (MACs) of matrix products.

Only matrix products are counted (an (m x k) by (k x n) product is m*k*n MACs); softmax,
exponentials, feature maps, sums and divisions are free. These are the numbers a profiler
such as ``torch.utils.flop_counter.FlopCounterMode`` reports, halved (it counts 2 FLOPs per MAC).
"""

from __future__ import annotations


def softmax_attention_macs(n_queries: int, n_keys: int, d_k: int, d_v: int) -> int:
    """MACs of the scores Q K^T (n_q x d_k by d_k x n_k) plus the weighted sum A V (n_q x n_k by n_k x d_v)."""
    # BEGIN SOLUTION
    return n_queries * n_keys * d_k + n_queries * n_keys * d_v
    # END SOLUTION


def transformer_attention_macs(M: int, N: int, k: int) -> dict[str, int]:
    """Attention MACs of an encoder input of length M and a decoder output of length N, width k.

    Keys: "encoder_self", "cross" (N decoder queries over M encoder keys), "decoder_self".
    """
    # BEGIN SOLUTION
    return {
        "encoder_self": softmax_attention_macs(M, M, k, k),
        "cross": softmax_attention_macs(N, M, k, k),
        "decoder_self": softmax_attention_macs(N, N, k, k),
    }
    # END SOLUTION


def kernel_feature_dim(D: int, degree: int) -> int:
    """Length of the explicit feature map of the polynomial kernel (q . k) ** degree on D-dim inputs."""
    # BEGIN SOLUTION
    # One feature per ordered choice of `degree` coordinates: phi(x) is x outer x outer ... flattened.
    return D**degree
    # END SOLUTION


def linear_attention_macs(N: int, D: int, M: int, degree: int = 2) -> int:
    """Non-causal kernelized attention, N queries over N keys: phi(K)^T V, phi(Q) (phi(K)^T V) and the normaliser."""
    # BEGIN SOLUTION
    F = kernel_feature_dim(D, degree)
    return 2 * N * F * M + N * F
    # END SOLUTION


def crossover_length(D: int, M: int, degree: int = 2) -> int:
    """The smallest N at which kernelized attention needs strictly fewer MACs than softmax attention."""
    # BEGIN SOLUTION
    # For N >= 1 the condition N*F*(2M+1) < N*N*(D+M) is N > F*(2M+1)/(D+M); integer
    # division keeps it exact, and a tie (equal costs) is not yet a crossing.
    F = kernel_feature_dim(D, degree)
    return F * (2 * M + 1) // (D + M) + 1
    # END SOLUTION


def relative_position_bias_params(max_len: int, n_heads: int, max_distance: int | None = None) -> int:
    """Learned per-head biases pi_{i-j} for a context of max_len tokens, offsets clipped to +-max_distance if given."""
    # BEGIN SOLUTION
    # Offsets i - j range over -(max_len-1) .. max_len-1; clipping can only shrink that range.
    reach = max_len - 1 if max_distance is None else min(max_distance, max_len - 1)
    return (2 * reach + 1) * n_heads
    # END SOLUTION
