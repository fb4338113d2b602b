"""Power of the statistical checks added for random_features, measured over seeds.

Run from the project root: ``.venv/bin/python bench/bench_random_features_power.py [--choices N]``.
Each check runs as the hidden tests run it, on the known mistake it is for and on the reference (whose
failures would be false failures), with the seeds the test uses replaced by fresh ones in every choice:

- frequency law (row lengths and independence of consecutive rows): ``freq_fixed_norm_rows`` and
  ``freq_orthogonal_blocks`` at the hidden test's size, generator=None replaced by a seeded generator;
- fresh draws per trial (F test on 24 seeds against 128 reference runs): ``error_frequencies_shared_by_trials``
  and ``error_inputs_shared_by_trials``; each choice uses 24 new student seeds and 128 reference runs drawn
  from a pool of reference runs on other seeds;
- inputs of n_tokens rows (error at n_tokens=1 below 1e-4): ``error_n_tokens_fixed``.

It prints, per check and variant, how often the check fails (power for a mistake, false failures for
the reference) and for the F test the largest ratio seen against the limit. One thread, as in grading.
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

from autograder.staff import solutions  # noqa: E402
from autograder.testkit.problem_helpers import problem_support  # noqa: E402
from autograder.testkit.stats import f_isf  # noqa: E402

MODULE = "random_features"
LAW_D, LAW_N = 9, 20_000  # as in test_frequencies_law_without_generator
FRESH = dict(D=16, num_features=4, n_tokens=16, input_scale=0.05, n_trials=64)  # as in test_error_averages_fresh_draws
FRESH_STUDENT_RUNS, FRESH_REFERENCE_RUNS = 24, 128


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


def log_errors(module, seeds) -> np.ndarray:
    return np.log([module.approximation_error(seed=int(s), **FRESH) for s in seeds])


def fresh_power(choices: int) -> None:
    reference = implementation("reference")
    pool = log_errors(reference, range(60_000, 60_000 + 4 * FRESH_REFERENCE_RUNS + choices))
    limit = f_isf(1e-7, FRESH_STUDENT_RUNS - 1, FRESH_REFERENCE_RUNS - 1)
    rng = np.random.default_rng(0)
    for name in ("reference", "error_frequencies_shared_by_trials", "error_inputs_shared_by_trials"):
        module, start = implementation(name), time.perf_counter()
        seeds = 70_000 + np.arange(choices * FRESH_STUDENT_RUNS)
        values = log_errors(module, seeds).reshape(choices, FRESH_STUDENT_RUNS)
        ratios = np.array([np.var(v, ddof=1) / np.var(rng.choice(pool, FRESH_REFERENCE_RUNS, replace=False), ddof=1) for v in values])
        print(f"fresh draws        {name:38s} fails {(ratios > limit).sum()}/{choices}; ratio min {ratios.min():.2f}, "
              f"median {np.median(ratios):.2f}, max {ratios.max():.2f}, limit {limit:.2f} ({time.perf_counter() - start:.0f} s)", flush=True)


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
