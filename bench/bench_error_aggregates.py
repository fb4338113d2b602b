"""Power of the two-sided rank check of approximation_error against other aggregates of the trials, by simulation.

Run from the project root: ``.venv/bin/python bench/bench_error_aggregates.py`` (about 15 minutes of CPU: a million trials).
``error_norms_over_the_whole_output`` ranks 4 values (128 trials each, D = 1, F = 256, 32 tokens, input_scale 0.5)
among 128 reference runs of the same arguments: it fails when all 4 lie above all but one run, or all 4 below all but
one run. For a correct implementation each side has the exact chance C(5, 4) / C(132, 4) = 4.1e-7 (the 132 values are
exchangeable), 8.2e-7 for both. Here each trial's ||rff - exact||_F and ||exact||_F are computed once, and a simulated
student aggregates its 128 trials as the definition does (the mean of the per-trial ratios) or as a neighbour does: the
median of the ratios (torch's, the lower one), the ratio of the summed norms, the root mean square of the ratios.
"""

from __future__ import annotations

import math

import torch
from bench_error_neighbours import REFERENCE_RUNS, trials

SETTING, N_TRIALS, SEEDS, BEYOND = (1, 256, 32, 0.5), 128, 4, 1


def trial_norms(D: int, F: int, N: int, scale: float, n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """||rff_attention - exact||_F and ||exact||_F of n single trials."""
    approx, scores, V = trials(D, F, N, scale, n, seed)
    exact = torch.softmax(scores, -1) @ V
    return (approx - exact).pow(2).sum((-1, -2)).sqrt(), exact.pow(2).sum((-1, -2)).sqrt()


def aggregates(count: int, seed: int) -> dict[str, torch.Tensor]:
    """``count`` values of each aggregate, each over N_TRIALS fresh trials."""
    parts = []
    for b in range(count // 50):
        diff, exact = (x.view(50, N_TRIALS) for x in trial_norms(*SETTING, 50 * N_TRIALS, seed + b))
        ratio = diff / exact
        parts.append({"mean of ratios (the definition)": ratio.mean(1), "median of ratios": ratio.median(1).values,
                      "ratio of summed norms": diff.sum(1) / exact.sum(1), "root mean square of ratios": ratio.pow(2).mean(1).sqrt()})
    return {k: torch.cat([p[k] for p in parts]) for k in parts[0]}


def main(simulations: int = 20000, reference_pool: int = 4000, students: int = 1000) -> None:
    chance = math.comb(SEEDS + BEYOND, SEEDS) / math.comb(REFERENCE_RUNS + SEEDS, SEEDS)
    reference = aggregates(reference_pool, seed=20_000)["mean of ratios (the definition)"]
    fresh = aggregates(students * SEEDS, seed=60_000)
    g = torch.Generator().manual_seed(12)
    picked = torch.cat([torch.rand(min(1000, simulations - i), len(reference), generator=g).argsort(1)[:, :REFERENCE_RUNS + SEEDS]
                        for i in range(0, simulations, 1000)])
    runs = reference[picked[:, :REFERENCE_RUNS]].sort(1).values
    high, low = runs[:, -1 - BEYOND], runs[:, BEYOND]  # all 4 above `high`, or all 4 below `low`, fails
    print(f"D=1, F=256, 32 tokens, input_scale 0.5, {N_TRIALS} trials at {SEEDS} seeds; fails when all {SEEDS} lie beyond all but "
          f"{BEYOND} of {REFERENCE_RUNS} reference runs, on either side: false failure {2 * chance:.2g} (exact)")
    own = reference[picked[:, REFERENCE_RUNS:]]
    false = int(((own.min(1).values > high) | (own.max(1).values < low)).sum())
    print(f"  correct students drawn from the pool: {false}/{simulations} fail (expected about {2 * chance * simulations:.2g})")
    for name, values in fresh.items():
        four = values.view(students, SEEDS)
        caught = sum(float(((four.min(1).values[:, None] > hi[None, :]) | (four.max(1).values[:, None] < lo[None, :])).float().sum())
                     for hi, lo in zip(high.split(1000), low.split(1000))) / (students * simulations)
        print(f"  {name:34s} caught {caught:.4f} of {students} students x {simulations} reference draws; median "
              f"{values.median():.4g} (reference runs' median {reference.median():.4g}, {values.median() / reference.median() - 1:+.0%})")


if __name__ == "__main__":
    torch.set_num_threads(1)
    main()
