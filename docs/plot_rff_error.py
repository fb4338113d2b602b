"""Plot the random-feature approximation error against num_features for several D (docs/rff_error.png).

Uses the reference implementation (reference/random_features.py). Run from anywhere:
``.venv/bin/python docs/plot_rff_error.py``.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "rff_error.png"
DIMENSIONS = (4, 16, 64)
NUM_FEATURES = (8, 16, 32, 64, 128, 256, 512, 1024, 2048)
N_TRIALS = 64


def load_reference():
    """The reference module, imported from its file (the project need not be installed)."""
    spec = importlib.util.spec_from_file_location("reference_random_features", ROOT / "reference" / "random_features.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    """Compute the mean error over N_TRIALS trials for each D and num_features, and draw it log-log."""
    torch.set_num_threads(1)
    rf = load_reference()
    fig, ax = plt.subplots(figsize=(6.4, 4.4), dpi=120)
    F = np.array(NUM_FEATURES, dtype=float)
    for D in DIMENSIONS:
        errors = np.array([rf.approximation_error(D, int(f), n_trials=N_TRIALS, seed=0) for f in NUM_FEATURES])
        ax.plot(F, errors, marker="o", label=f"D = {D}")
    # A guide of slope -1/2 through the middle of the D = 16 curve's range.
    anchor = rf.approximation_error(16, 64, n_trials=N_TRIALS, seed=0)
    ax.plot(F, 1.6 * anchor * np.sqrt(64 / F), "k--", linewidth=1, label=r"slope $-1/2$: error $\propto 1/\sqrt{\mathrm{num\_features}}$")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("num_features (random frequencies)")
    ax.set_ylabel(r"mean relative error $\|\mathrm{rff} - \mathrm{exact}\|_F / \|\mathrm{exact}\|_F$")
    ax.set_title(f"Random-feature attention vs softmax attention\n(64 tokens, input scale 0.3, mean of {N_TRIALS} trials)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(OUT)
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
