"""Class-wide summary of many graded submissions: per-problem mean, median, share of full marks."""

from __future__ import annotations

import statistics
from pathlib import Path

from ..scores import GradeReport

FULL = 1e-9


def _line(label: str, scores: list[float], top: float) -> str:
    if not scores:
        return f"{label:<26} {'-':>8} {'-':>8} {'-':>6} {top:>6g}"
    full = sum(s >= top - FULL for s in scores) / len(scores)
    return f"{label:<26} {statistics.fmean(scores):8.2f} {statistics.median(scores):8.2f} {full:6.0%} {top:>6g}"


def render(reports: list[GradeReport], modules: list[str]) -> str:
    """A table: one line per problem and one for the total, over every graded submission."""
    lines = [f"{len(reports)} submissions", f"{'problem':<26} {'mean':>8} {'median':>8} {'full':>6} {'max':>6}"]
    for module in modules:
        found = [p for r in reports for p in r.problems if p.module == module]
        top = max((p.max_points for p in found), default=0.0)
        lines.append(_line(module, [p.points for p in found], top))
    top = max((r.max_points for r in reports), default=0.0)
    lines.append(_line("TOTAL", [r.points for r in reports], top))
    return "\n".join(lines)


def histogram(reports: list[GradeReport], path: Path) -> str:
    """Save a histogram of totals as PNG; return a note (matplotlib is a staff-only dependency)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return f"matplotlib is not installed; skipped {path.name}"
    totals = [r.points for r in reports]
    top = max((r.max_points for r in reports), default=1.0) or 1.0
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.hist(totals, bins=min(30, max(5, int(top))), range=(0, top), color="#4472c4", edgecolor="white")
    ax.set_xlabel(f"total points (out of {top:g})")
    ax.set_ylabel("submissions")
    ax.set_title(f"Totals of {len(totals)} submissions")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return f"wrote {path}"
