"""The MAC counter agrees with torch's FlopCounterMode on the products the complexity tests perform."""

import math

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from autograder.macs import UnpricedOperation, measured_macs


def rand(*shape):
    return torch.rand(*shape, dtype=torch.float64)


def softmax_attention(Q, K, V):
    return torch.softmax(Q @ K.T / math.sqrt(Q.shape[-1]), dim=-1) @ V


def linear_attention(phi_Q, phi_K, V):
    return (phi_Q @ (phi_K.T @ V)) / (phi_Q @ phi_K.sum(dim=0)[:, None])


COMPUTATIONS = {
    "softmax attention": lambda: softmax_attention(rand(5, 3), rand(7, 3), rand(7, 4)),
    "linear attention": lambda: linear_attention(rand(6, 9), rand(6, 9), rand(6, 2)),
    "batched product": lambda: rand(2, 3, 4, 5) @ rand(2, 3, 5, 6),
    "broadcast product": lambda: rand(3, 4, 5) @ rand(5, 2),
    "torch.mm and torch.bmm": lambda: (torch.mm(rand(4, 3), rand(3, 2)), torch.bmm(rand(2, 4, 3), rand(2, 3, 5))),
    "no product": lambda: torch.softmax(rand(4, 4), dim=-1).sum(),
}


@pytest.mark.parametrize("name", COMPUTATIONS)
def test_agrees_with_flop_counter_mode(name):
    compute = COMPUTATIONS[name]
    with FlopCounterMode(display=False) as counter:
        compute()
    assert measured_macs(compute) == counter.get_total_flops() // 2


def test_counts_each_product():
    assert measured_macs(lambda: rand(5, 3) @ rand(3, 7)) == 5 * 3 * 7
    assert measured_macs(lambda: (rand(2, 3) @ rand(3, 4), rand(4, 4) @ rand(4, 1))) == 2 * 3 * 4 + 4 * 4 * 1


def test_matrix_vector_products_are_priced():
    # FlopCounterMode counts these as 0; the tests avoid them, and this counter prices them in full.
    assert measured_macs(lambda: rand(4, 3) @ rand(3)) == 12
    assert measured_macs(lambda: rand(3) @ rand(3)) == 3


def test_products_without_a_rule_fail_loudly():
    with pytest.raises(UnpricedOperation, match="einsum"):
        measured_macs(lambda: torch.einsum("ij,jk->ik", rand(2, 3), rand(3, 4)))
