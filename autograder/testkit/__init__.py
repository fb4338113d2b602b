"""Everything a test file imports, and the only module it imports: calls, checks, inputs, costs and statistics.

Test files define ``@test_case`` functions. A test calls the student through a proxy (``Call(module.fn, *args)``),
compares with the reference's recorded output, and fails with a message that says what was called, what was
expected, what came back and where they differ.
"""

from ..sandbox.errors import StudentCallError
from ..sandbox.worker.wire import GlobalSeed, Named, Seeded
from .background import Background
from .calls import Call, expect_raises, known_mistake, reference_value
from .cases import test_case
from .checks import (
    FLOAT32,
    FLOAT64,
    CheckFailure,
    Tolerance,
    describe,
    difference,
    difference_keys,
    expect_between,
    expect_equal,
    expect_true,
    fail,
    revealing,
)
from .inputs import rand, randint, randn, tensor
from .macs import measured_macs
from .problem_helpers import problem_support
from .scaling import expect_linear_in_tokens
from .stats import chi2_cdf, f_isf, f_sf

__all__ = [
    "Background",
    "Call",
    "CheckFailure",
    "FLOAT32",
    "FLOAT64",
    "GlobalSeed",
    "Named",
    "Seeded",
    "StudentCallError",
    "Tolerance",
    "chi2_cdf",
    "describe",
    "difference",
    "difference_keys",
    "expect_between",
    "expect_equal",
    "expect_linear_in_tokens",
    "expect_raises",
    "expect_true",
    "f_isf",
    "f_sf",
    "fail",
    "known_mistake",
    "measured_macs",
    "problem_support",
    "rand",
    "randint",
    "randn",
    "reference_value",
    "revealing",
    "tensor",
    "test_case",
]
