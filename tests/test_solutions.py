"""Recorded reference outputs (what the handout ships instead of the reference): found exactly, or closely."""

import numpy as np
import pytest
import torch

from autograder import paths, solutions
from autograder.sandbox import wire


@pytest.fixture
def recorded(tmp_path, monkeypatch):
    """A recording of two calls of ``demo.f`` under a temporary assignments folder."""
    (tmp_path / "demo" / "tests").mkdir(parents=True)
    x = torch.arange(6, dtype=torch.float64).reshape(2, 3) / 7
    calls = [("f", (x,), {"scale": 0.5}, x * 0.5), ("f", (x, 3), {}, x.sum() * 3)]
    solutions.save_recorded("demo", calls, tmp_path)
    monkeypatch.setattr(paths, "ASSIGNMENTS", tmp_path)
    solutions._recorded.cache_clear()
    yield x
    solutions._recorded.cache_clear()


def test_the_same_call_finds_its_output(recorded):
    got = solutions.recorded_output("demo", "f", (recorded.clone(),), {"scale": 0.5})
    assert torch.equal(got, recorded * 0.5)
    assert float(solutions.recorded_output("demo", "f", (recorded, 3), {})) == pytest.approx(float(recorded.sum() * 3))
    # by a dictionary lookup, not a scan of every recorded call
    tree, arrays = wire.encode([[recorded], {"scale": 0.5}], solutions._to_array)
    assert solutions._exact_key("f", tree, arrays) in solutions._recorded("demo")[2]


def test_inputs_off_in_the_last_bits_still_find_it(recorded):
    nudged = torch.from_numpy(np.nextafter(recorded.numpy(), 10.0))
    assert torch.equal(solutions.recorded_output("demo", "f", (nudged,), {"scale": 0.5}), recorded * 0.5)


def test_other_inputs_are_not_found(recorded):
    with pytest.raises(LookupError, match="no expected value is recorded for demo.f"):
        solutions.recorded_output("demo", "f", (recorded + 1,), {"scale": 0.5})
    with pytest.raises(LookupError):
        solutions.recorded_output("demo", "f", (recorded,), {"scale": 0.25})
