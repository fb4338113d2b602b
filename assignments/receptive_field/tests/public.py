"""Public tests of problem 2 (receptive_field): the size formula, its cap, and the README's example."""

from autograder.testkit import Call, expect_equal, tensor, test_case

# The README's example: 6 tokens, 2 layers (bottom first), one head per layer.
EXAMPLE = [
    [[1], [2], [0], [5], [3], [4]],
    [[3], [0], [4], [1], [2], [0]],
]


@test_case(points=1, hidden=False)
def test_size_formula(receptive_field):
    for n_layers, n_heads in [(3, 1), (2, 2), (1, 4), (0, 3)]:
        Call(receptive_field.receptive_field_size, n_layers, n_heads).matches_reference()


@test_case(points=1, hidden=False)
def test_size_capped_at_seq_len(receptive_field):
    Call(receptive_field.receptive_field_size, 3, 2, seq_len=10).matches_reference()
    Call(receptive_field.receptive_field_size, 2, 2, seq_len=100).matches_reference()


@test_case(points=1, hidden=False)
def test_worked_example(receptive_field):
    call = Call(receptive_field.receptive_field, EXAMPLE, 0)
    got = call.matches_reference()
    expect_equal(got, {0, 1, 3, 5}, called=call.shown + "  (the README's example)")


@test_case(points=1, hidden=False)
def test_two_heads_as_tensors_and_zero_layers(receptive_field):
    layers = [
        tensor([[1, 2], [0, 0], [4, 1], [3, 3], [0, 2]]),
        tensor([[2, 2], [4, 0], [3, 1], [1, 0], [4, 4]]),
    ]
    for position in range(5):
        Call(receptive_field.receptive_field, layers, position).matches_reference()
    Call(receptive_field.receptive_field, [], 3).matches({3})
