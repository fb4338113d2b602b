"""Public tests of problem 3 (complexity): the worked examples of the statement."""

from autograder.testkit import Call, problem_support, test_case

expect_cost_dict = problem_support("complexity").expect_cost_dict


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
