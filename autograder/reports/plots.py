"""The class's scores as PNG images (matplotlib is a staff-only dependency: without it there are no plots)."""

from __future__ import annotations

import io

from ..model.scores import GradeReport

COLOR = "#4472c4"


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def _png(fig, plt) -> bytes:
    buffer = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buffer, format="png", dpi=100)
    plt.close(fig)
    return buffer.getvalue()


def totals_png(reports: list[GradeReport]) -> bytes | None:
    """A histogram of total scores; None without matplotlib."""
    plt = _pyplot()
    if plt is None:
        return None
    totals = [r.points for r in reports]
    top = max((r.max_points for r in reports), default=1.0) or 1.0
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.hist(totals, bins=min(30, max(5, int(top))), range=(0, top), color=COLOR, edgecolor="white")
    ax.set_xlabel(f"total points (out of {top:g})")
    ax.set_ylabel("submissions")
    ax.set_title(f"Totals of {len(totals)} submissions")
    return _png(fig, plt)


def problems_png(reports: list[GradeReport], modules: list[str]) -> bytes | None:
    """One small histogram of scores per problem, side by side; None without matplotlib."""
    plt = _pyplot()
    if plt is None or not modules:
        return None
    columns = min(3, len(modules))
    rows = -(-len(modules) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(4 * columns, 2.8 * rows), squeeze=False)
    for ax, module in zip(axes.flat, modules):
        found = [p for r in reports for p in r.problems if p.module == module]
        top = max((p.max_points for p in found), default=1.0) or 1.0
        ax.hist([p.points for p in found], bins=min(30, int(top) + 1), range=(-0.5, top + 0.5), color=COLOR, edgecolor="white")
        ax.set_title(f"{module} (out of {top:g})", fontsize=10)
        ax.set_xlabel("points")
        ax.set_ylabel("submissions")
    for ax in list(axes.flat)[len(modules):]:
        ax.axis("off")
    return _png(fig, plt)
