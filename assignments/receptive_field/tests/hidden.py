"""Hidden tests of problem 2 (receptive_field): exact big sizes, cap edges, random and extreme patterns."""

import numpy as np

from autograder.testkit import Call, expect_true, randint, tensor, test_case


def random_pattern(n_layers, T, n_heads, seed):
    """One (T, n_heads) int64 tensor of attended keys per layer, bottom layer first."""
    return [randint(0, T, (T, n_heads), seed=seed * 1000 + layer) for layer in range(n_layers)]


def in_form(layers, form):
    """The same pattern as nested lists, numpy arrays or torch tensors (what the student receives)."""
    if form == "list":
        return [layer.tolist() for layer in layers]
    if form == "int64 array":
        return [np.asarray(layer) for layer in layers]
    if form == "int32 array":
        return [np.asarray(layer).astype(np.int32) for layer in layers]
    return layers


def digit_pattern(n_layers, n_heads, T):
    """Head h of query t at layer l reads t + (h+1)(n_heads+1)^l (mod T): every trace back from the top is distinct."""
    base = n_heads + 1
    t = tensor(np.arange(T))[:, None]
    h = tensor(np.arange(n_heads))[None, :]
    return [(t + (h + 1) * base**layer) % T for layer in range(n_layers)]


def bound(receptive_field, n_layers, n_heads, T):
    return Call(receptive_field.receptive_field_size, n_layers, n_heads, seq_len=T).reference()


@test_case(points=1, hidden=True)
def test_size_exact_for_many_layers(receptive_field):
    # (n_heads+1)**n_layers beyond 2**53: only integer arithmetic gives every digit right.
    for n_layers, n_heads in [(40, 4), (64, 1), (100, 2), (45, 6)]:
        Call(receptive_field.receptive_field_size, n_layers, n_heads).matches_reference()
    Call(receptive_field.receptive_field_size, 100, 2, seq_len=10**40).matches_reference()
    # A cap one below and one above the size: the logs of the two sides are equal in floats, so only integers tell them apart.
    for n_layers, n_heads in [(45, 6), (40, 2), (64, 1)]:
        size = (n_heads + 1) ** n_layers
        for seq_len in (size - 1, size + 1):
            Call(receptive_field.receptive_field_size, n_layers, n_heads, seq_len=seq_len).matches_reference()


@test_case(points=1, hidden=True)
def test_size_cap_edges(receptive_field):
    # seq_len exactly at, just above and just below the uncapped size; one-token sequences.
    for n_layers, n_heads, seq_len in [(2, 2, 9), (3, 1, 8), (3, 1, 9), (2, 3, 15), (4, 1, 1), (1, 5, 6)]:
        Call(receptive_field.receptive_field_size, n_layers, n_heads, seq_len=seq_len).matches_reference()
    for n_layers, n_heads, seq_len in [(0, 4, 5), (7, 0, 3), (5, 0, None), (0, 0, 1)]:
        Call(receptive_field.receptive_field_size, n_layers, n_heads, seq_len=seq_len).matches_reference()


@test_case(points=1, hidden=True)
def test_random_patterns_in_every_form(receptive_field):
    cases = [(3, 40, 2, "list"), (2, 30, 3, "int64 array"), (4, 60, 1, "tensor"), (3, 50, 2, "int32 array"), (5, 80, 1, "list")]
    for seed, (n_layers, T, n_heads, form) in enumerate(cases):
        layers = in_form(random_pattern(n_layers, T, n_heads, seed=100 + seed), form)
        # One position per pattern, the last: positions 0 and T // 3 as well make no known mistake fail that does not fail
        # here; the other tests ask for other positions.
        Call(receptive_field.receptive_field, layers, T - 1).matches_reference()


@test_case(points=1, hidden=True)
def test_never_more_than_the_bound(receptive_field):
    for seed, (n_layers, T, n_heads) in enumerate([(4, 12, 2), (6, 30, 1), (3, 20, 3), (8, 25, 1)]):
        layers = random_pattern(n_layers, T, n_heads, seed=200 + seed)
        limit = bound(receptive_field, n_layers, n_heads, T)
        for position in (1, T - 2):  # T // 2 as well makes no known mistake fail that does not fail at these two
            call = Call(receptive_field.receptive_field, layers, position)
            got = call.result()
            if isinstance(got, set):
                expect_true(len(got) <= limit, f"the set has {len(got)} positions, more than {n_layers} layers of {n_heads}-head "
                            f"argmax attention over {T} tokens can reach", called=call.shown)
                expect_true(all(isinstance(j, int) and 0 <= j < T for j in got),
                            f"every position in the set should be an int in range({T})", called=call.shown)
            call.matches_reference()


@test_case(points=1, hidden=True)
def test_patterns_that_reach_the_bound(receptive_field):
    for n_layers, n_heads, T, form in [(3, 2, 27, "tensor"), (2, 3, 16, "list"), (5, 1, 32, "int64 array"), (4, 1, 10, "tensor")]:
        layers = in_form(digit_pattern(n_layers, n_heads, T), form)
        limit = bound(receptive_field, n_layers, n_heads, T)
        # One position per pattern: position 0 as well makes no known mistake fail that does not fail at 5.
        call = Call(receptive_field.receptive_field, layers, 5)
        got = call.result()
        if isinstance(got, set):
            expect_true(len(got) == limit, "in this pattern every path back from the output ends at a different input, so the "
                        f"set should be as large as receptive_field_size allows; yours has {len(got)} positions", called=call.shown)
        call.matches_reference()


@test_case(points=1, hidden=True)
def test_zero_layers_and_zero_heads(receptive_field):
    Call(receptive_field.receptive_field, [], 0).matches_reference()
    Call(receptive_field.receptive_field, [], 17).matches_reference()
    no_heads = [[[] for _ in range(6)] for _ in range(3)]
    Call(receptive_field.receptive_field, no_heads, 4).matches_reference()
