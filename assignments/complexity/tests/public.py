"""Public tests of problem 3 (complexity): the worked examples of the statement."""

from autograder.testkit import Call, expect_equal, expect_true, test_case

OK_FORMAT = False
name = "complexity_public"

WHAT_EACH_KEY_COUNTS = {
    "encoder_self": "M encoder queries over M encoder keys",
    "cross": "N decoder queries over M encoder keys and values",
    "decoder_self": "N decoder queries over N decoder keys",
}


def expect_cost_dict(call, expected):
    """The three attention costs of a transformer, one key at a time."""
    got = call.result()
    expect_true(isinstance(got, dict), f"expected a dict, got {type(got).__name__} {got!r:.80}", called=call.shown)
    expect_true(set(got) == set(expected), f"expected exactly the keys {sorted(expected)}, got {sorted(map(repr, got))}", called=call.shown)
    for key in expected:
        expect_equal(got[key], expected[key], called=f"{call.shown}[{key!r}]  ({WHAT_EACH_KEY_COUNTS[key]})")


@test_case(points=1, hidden=False)
def test_softmax_attention_macs_small(complexity):
    Call(complexity.softmax_attention_macs, 4, 6, 3, 5).matches(4 * 6 * 3 + 4 * 6 * 5)
    Call(complexity.softmax_attention_macs, 2, 9, 8, 1).matches_reference()


@test_case(points=1, hidden=False)
def test_transformer_attention_macs_worked_example(complexity):
    call = Call(complexity.transformer_attention_macs, 6, 4, 8)
    expect_cost_dict(call, call.reference())


@test_case(points=1, hidden=False)
def test_kernel_feature_dim_small(complexity):
    Call(complexity.kernel_feature_dim, 3, 2).matches(9)
    Call(complexity.kernel_feature_dim, 2, 3).matches_reference()


@test_case(points=1, hidden=False)
def test_linear_attention_macs_worked_example(complexity):
    Call(complexity.linear_attention_macs, 10, 3, 4, degree=2).matches(810)
    Call(complexity.linear_attention_macs, 5, 2, 7, degree=3).matches_reference()


@test_case(points=1, hidden=False)
def test_crossover_length_worked_example(complexity):
    Call(complexity.crossover_length, 3, 4).matches(12)
    Call(complexity.crossover_length, 2, 5, degree=3).matches_reference()


@test_case(points=1, hidden=False)
def test_relative_position_bias_params_with_and_without_clipping(complexity):
    Call(complexity.relative_position_bias_params, 5, 3).matches(27)
    Call(complexity.relative_position_bias_params, 8, 2, max_distance=3).matches_reference()
