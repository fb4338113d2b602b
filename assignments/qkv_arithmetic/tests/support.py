"""Helpers shared by the public and hidden tests of problem 1 (qkv_arithmetic)."""

from autograder.testkit import tensor

# The worked example of the statement: three tokens h1, h2, h3 as rows, and the three weight matrices.
H_EXAMPLE = tensor([[5.0, 1.0], [4.0, 3.0], [-2.0, 6.0]])
W_q = tensor([[1.0, 0.0], [2.0, 9.0]])
W_k = tensor([[0.0, 1.0], [6.0, 0.0]])
W_v = tensor([[4.0, 3.0], [9.0, 1.0]])


def projections(H):
    """The queries, keys and values of the tokens H (one per row) under the example's weights."""
    return H @ W_q.T, H @ W_k.T, H @ W_v.T
