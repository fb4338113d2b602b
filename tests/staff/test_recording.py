"""The recorder: a call a check compares keeps the known mistakes' outputs for hints; a metered call keeps none."""

from autograder.expected.store import encode_inputs, exact_key
from autograder.staff.recording import Recorder, TrustedModule
from autograder.testkit.inputs import randn

MODULE = "random_features"


def inputs(seed: int) -> tuple:
    return randn(6, 2, seed=seed, scale=0.3), randn(6, 2, seed=seed + 1, scale=0.3), randn(6, 3, seed=seed + 2), randn(4, 2, seed=seed + 3)


def recorded_mistakes(recorder: Recorder, args: tuple) -> dict:
    return recorder.store.entries[exact_key("rff_attention", *encode_inputs(args, {}))].mistakes


def test_a_plain_call_keeps_the_mistakes_outputs_and_a_metered_one_none():
    recorder = Recorder(MODULE)
    student = TrustedModule(recorder).rff_attention
    plain, metered = inputs(1), inputs(11)
    student(*plain)
    value, cost = student.metered(metered, {}, {"work": True})
    assert "rff_attention_unnormalised" in recorded_mistakes(recorder, plain)
    assert recorded_mistakes(recorder, metered) == {}
    assert value.shape == (6, 3) and cost["work"] > 0
