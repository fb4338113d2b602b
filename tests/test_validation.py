"""Every problem: reference full marks, stub zero, each mistake loses points, each fair variant keeps them."""

import pytest

from autograder import manifest

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
