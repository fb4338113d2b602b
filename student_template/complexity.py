# Student stub generated from the reference by `make templates`. Replace each TODO with your code.
"""Problem 3: the cost of attention, counted in multiply-accumulates (MACs) of matrix products.

Only matrix products are counted (an (m x k) by (k x n) product is m*k*n MACs); softmax,
exponentials, feature maps, sums and divisions are free. These are the numbers a profiler
such as ``torch.utils.flop_counter.FlopCounterMode`` reports, halved (it counts 2 FLOPs per MAC).
"""

from __future__ import annotations


def softmax_attention_macs(n_queries: int, n_keys: int, d_k: int, d_v: int) -> int:
    """MACs of the scores Q K^T (n_q x d_k by d_k x n_k) plus the weighted sum A V (n_q x n_k by n_k x d_v)."""
    raise NotImplementedError("TODO: implement softmax_attention_macs()")


def transformer_attention_macs(M: int, N: int, k: int) -> dict[str, int]:
    """Attention MACs of an encoder input of length M and a decoder output of length N, width k.

    Keys: "encoder_self", "cross" (N decoder queries over M encoder keys), "decoder_self".
    """
    raise NotImplementedError("TODO: implement transformer_attention_macs()")


def kernel_feature_dim(D: int, degree: int) -> int:
    """Length of the explicit feature map of the polynomial kernel (q . k) ** degree on D-dim inputs."""
    raise NotImplementedError("TODO: implement kernel_feature_dim()")


def linear_attention_macs(N: int, D: int, M: int, degree: int = 2) -> int:
    """Non-causal kernelized attention, N queries over N keys: phi(K)^T V, phi(Q) (phi(K)^T V) and the normaliser."""
    raise NotImplementedError("TODO: implement linear_attention_macs()")


def crossover_length(D: int, M: int, degree: int = 2) -> int:
    """The smallest N at which kernelized attention needs strictly fewer MACs than softmax attention."""
    raise NotImplementedError("TODO: implement crossover_length()")


def relative_position_bias_params(max_len: int, n_heads: int, max_distance: int | None = None) -> int:
    """Learned per-head biases pi_{i-j} for a context of max_len tokens, offsets clipped to +-max_distance if given."""
    raise NotImplementedError("TODO: implement relative_position_bias_params()")
