"""Helpers shared by the public and hidden tests of problem 3 (complexity)."""

from autograder.testkit import difference_keys, expect_equal, expect_true

WHAT_EACH_KEY_COUNTS = {
    "encoder_self": "M encoder queries over M encoder keys",
    "cross": "N decoder queries over M encoder keys and values",
    "decoder_self": "N decoder queries over N decoder keys",
}


def expect_cost_dict(call, expected):
    """The three attention costs of a transformer, one key at a time."""
    got = call.result()
    expect_true(isinstance(got, dict), f"expected a dict, got {type(got).__name__} {got!r:.80}", called=call.shown)
    expect_true(set(got) == set(expected), difference_keys(got, expected), called=call.shown)
    for key in expected:
        expect_equal(got[key], expected[key], called=f"{call.shown}[{key!r}]  ({WHAT_EACH_KEY_COUNTS[key]})")
