"""Power of the statistical checks added for random_features, measured over seeds.

Run from the project root: ``.venv/bin/python bench/bench_random_features_power.py [--choices N]``.
Each check runs as the hidden tests run it, on the known mistake it is for and on the reference (whose
failures would be false failures), with the seeds the test uses replaced by fresh ones in every choice:

- frequency law (row lengths and independence of consecutive rows): ``freq_fixed_norm_rows`` and
  ``freq_orthogonal_blocks`` at the hidden test's size, generator=None replaced by a seeded generator;
- fresh draws per trial (random elements drawn at n_trials = 1 and 2, counted as the worker counts them):
  ``error_frequencies_shared_by_trials``, ``error_inputs_shared_by_trials`` and ``error_mean_of_extra_trial`` (two
  trials' draws at n_trials = 1), each choice on a new seed (the counts depend on the seed only through values that
  repeat);
- inputs of n_tokens rows (error at n_tokens=1 below 1e-4): ``error_n_tokens_fixed``.

It prints, per check and variant, how often the check fails (power for a mistake, false failures for
the reference). One thread, as in grading.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autograder.sandbox.worker import metering  # noqa: E402
from autograder.staff import solutions  # noqa: E402
from autograder.testkit.problem_helpers import problem_support  # noqa: E402

MODULE = "random_features"
LAW_D, LAW_N = 9, 20_000  # as in test_frequencies_law_without_generator
FRESH = dict(D=16, num_features=4, n_tokens=16, input_scale=0.05)  # as in test_error_averages_fresh_draws
FRESH_PER_TRIAL = 3 * 16 * 16 + 4 * 16


def implementation(name: str):
    """The reference module, or a mistake of random_features loaded over it."""
    if name == "reference":
        return solutions.reference(MODULE)
    return next(v for v in solutions.mistakes(MODULE) if v.name == name).load()


def law_power(choices: int) -> None:
    support = problem_support(MODULE)
    for name in ("reference", "freq_fixed_norm_rows", "freq_orthogonal_blocks"):
        module, start, failed = implementation(name), time.perf_counter(), 0
        for seed in range(choices):
            W = module.sample_frequencies(LAW_D, LAW_N, generator=torch.Generator().manual_seed(50_000 + seed)).numpy()
            failed += bool(support.frequency_law_problems(W, LAW_D, LAW_N, budget=1e-7))
        print(f"frequency law      {name:38s} fails {failed}/{choices} ({time.perf_counter() - start:.0f} s)", flush=True)


def fresh_power(choices: int) -> None:
    for name in ("reference", "error_frequencies_shared_by_trials", "error_inputs_shared_by_trials", "error_mean_of_extra_trial"):
        module, start, failed = implementation(name), time.perf_counter(), 0
        for seed in range(80_000, 80_000 + choices):
            one, two = (metering.metered(module.approximation_error, (), dict(FRESH, n_trials=t, seed=seed), {"work": True})[1] for t in (1, 2))
            drawn = two["random_elements"] - one["random_elements"]
            new = two["random_distinct"] - one["random_distinct"]
            failed += drawn < FRESH_PER_TRIAL or new < 0.9 * FRESH_PER_TRIAL or one["random_elements"] >= 2 * drawn
        print(f"fresh draws        {name:38s} fails {failed}/{choices} ({time.perf_counter() - start:.0f} s)", flush=True)


def n_tokens_power(choices: int) -> None:
    for name in ("reference", "error_n_tokens_fixed"):
        module = implementation(name)
        values = np.array([module.approximation_error(8, 4, n_tokens=1, n_trials=4, seed=seed) for seed in range(choices)])
        print(f"n_tokens=1 error   {name:38s} fails {(values > 1e-4).sum()}/{choices}; error min {values.min():.3g}, max {values.max():.3g}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--choices", type=int, default=300, help="seed choices per check and variant")
    parser.add_argument("--checks", default="law,n_tokens,fresh", help="comma-separated subset of law, n_tokens, fresh")
    args = parser.parse_args()
    torch.set_num_threads(1)
    checks = {"law": law_power, "n_tokens": n_tokens_power, "fresh": fresh_power}
    for name in args.checks.split(","):
        checks[name](args.choices)


if __name__ == "__main__":
    main()
