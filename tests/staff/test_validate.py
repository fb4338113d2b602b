"""Every problem: reference full marks, stub zero, each mistake loses points, each fair variant keeps them."""

import pytest

from autograder.model import manifest
from autograder.staff import validate

PROBLEMS = manifest.load().problems


@pytest.mark.parametrize("problem", PROBLEMS, ids=[p.module for p in PROBLEMS])
def test_variants_get_what_they_deserve(problem, graded_variants):
    outcomes = graded_variants(problem)
    wrong = [f"{o.label}: expected {o.expectation}, got {o.result.points:g}/{o.result.max_points:g}"
             + "".join(f"\n    {t.name}: {t.message[:300]}" for t in o.result.tests if not t.passed and o.kind in ("reference", "fair"))
             for o in outcomes if not o.as_expected]
    assert not wrong, "\n".join(wrong)
    kinds = {o.kind for o in outcomes}
    assert {"reference", "stub"} <= kinds
    two_passes = validate.two_passes_row(outcomes)
    assert two_passes.ok, two_passes.score


def test_validation_grades_in_gradescopes_room_so_a_variant_too_big_for_it_fails(assignment, monkeypatch):
    # A room too small for the textbook cumsum form on the long sequence (8192 tokens: 8 MiB for each N x C x M tensor)
    # makes it lose that test, as the old share (640 MB of 768, 128 MB for student code) did at 65536 tokens.
    from autograder.grading import worker_memory
    from autograder.staff import solutions

    problem = assignment.problem("causal_linear_attention")
    cumsum = next(v for v in solutions.fair_alternatives(problem.module) if v.name == "cumsum_form")
    monkeypatch.setattr(worker_memory, "gradescope_room", lambda a: worker_memory.WorkerMemory(16, "a 16 MB room"))
    [outcome] = validate.grade_variants(problem, [("fair:cumsum_form", "fair", cumsum.source())])
    assert not outcome.as_expected
    assert [t.name for t in outcome.result.tests if not t.passed] == ["long_sequence_in_linear_memory"]


def test_statistical_checks_name_the_known_mistake_whose_law_they_recognise(graded_variants, assignment):
    # No value comparison finds these (the outputs are random): the check recognises the law and names the mistake,
    # so its hint is shown and grade-all's class report counts it.
    outcomes = {o.label: o for o in graded_variants(assignment.problem("random_features"))}
    for name in ("freq_standard_normal", "freq_variance_sqrt_D", "freq_absolute_values", "freq_fixed_norm_rows",
                 "freq_orthogonal_blocks", "freq_scalar_per_feature", "generator_ignored", "error_mean_of_extra_trial",
                 "error_norms_per_row", "freq_fixed_seed_without_generator", "freq_antithetic_halves"):
        failed = [t for t in outcomes[f"mistake:{name}"].result.tests if name in t.mistakes]
        assert failed and all("Hint: " in t.message for t in failed), name


def test_a_variant_that_lost_points_to_a_busy_machine_says_so():
    from autograder.model.scores import ProblemResult, TestResult
    from autograder.staff.validate import Outcome

    result = ProblemResult("p", "P")
    result.tests = [TestResult("p", "t", 1.0, True, False, "stopped; the machine was too busy", failure="busy"),
                    TestResult("p", "u", 1.0, True, True, "")]
    assert Outcome("reference", "reference", result).machine_slow
    result.tests[0].failure = "timeout"
    assert not Outcome("reference", "reference", result).machine_slow


BARE_ASSERT = '''
import numpy as np

from autograder.testkit import problem_support, test_case

support = problem_support("qkv_arithmetic")
Q, K, _ = support.projections(support.H_EXAMPLE)


@test_case(points=1, hidden=False)
def test_scale_bare(qkv_arithmetic):
    assert np.allclose(qkv_arithmetic.attention_scores(Q, K, scale=0.5), 0.5 * qkv_arithmetic.attention_scores(Q, K))
    qkv_arithmetic.attention_scores(K, Q)
'''


def test_a_bare_assert_on_a_students_result_fails_validation_naming_the_test(assignment, tmp_path):
    import dataclasses

    from autograder.staff import solutions

    (tmp_path / "bare.py").write_text(BARE_ASSERT, encoding="utf-8")
    problem = dataclasses.replace(assignment.problem("qkv_arithmetic"), points=1.0, public_tests=(tmp_path / "bare.py",),
                                  hidden_tests=())
    ignored = next(v for v in solutions.mistakes(problem.module) if v.name == "scale_ignored")
    reference = solutions.reference_path(problem.module).read_text(encoding="utf-8")
    outcomes = validate.grade_variants(problem, [("reference", "reference", reference),
                                                   ("mistake:scale_ignored", "mistake", ignored.source())])
    assert [o.as_expected for o in outcomes] == [True, True]  # the scores alone would not tell
    row = validate.two_passes_row(outcomes)
    assert not row.ok and row.score == "test scale_bare judged early on mistake:scale_ignored", row
