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


def _histogram(ax, values: list[float], bins: int, span: tuple[float, float]) -> None:
    """Bars on a log scale with each bar's count above it: a handful of partial scores stays visible beside hundreds
    of full marks (on a linear scale a bar of 2 beside one of 250 is a line of a pixel or none)."""
    counts, _, bars = ax.hist(values, bins=bins, range=span, color=COLOR, edgecolor="white", log=True)
    ax.bar_label(bars, labels=[f"{c:g}" if c else "" for c in counts], fontsize=7, padding=1)
    ax.set_ylim(0.7, max(max(counts, default=1), 1) * 3)  # room for the labels above the tallest bar
    ax.set_ylabel("submissions (log scale)")


def totals_figure(reports: list[GradeReport]):
    """The histogram of total scores, as a matplotlib figure; None without matplotlib."""
    plt = _pyplot()
    if plt is None:
        return None
    totals = [r.points for r in reports]
    top = max((r.max_points for r in reports), default=1.0) or 1.0
    fig, ax = plt.subplots(figsize=(6, 3.5))
    _histogram(ax, totals, min(30, max(5, int(top))), (0, top))
    ax.set_xlabel(f"total points (out of {top:g})")
    ax.set_title(f"Totals of {len(totals)} submissions")
    return fig


def problems_figure(reports: list[GradeReport], modules: list[str]):
    """One small histogram of scores per problem, side by side, as a matplotlib figure; None without matplotlib."""
    plt = _pyplot()
    if plt is None or not modules:
        return None
    columns = min(3, len(modules))
    rows = -(-len(modules) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(4 * columns, 2.8 * rows), squeeze=False)
    for ax, module in zip(axes.flat, modules):
        found = [p for r in reports for p in r.problems if p.module == module]
        top = max((p.max_points for p in found), default=1.0) or 1.0
        _histogram(ax, [p.points for p in found], min(30, int(top) + 1), (-0.5, top + 0.5))
        ax.set_title(f"{module} (out of {top:g})", fontsize=10)
        ax.set_xlabel("points")
    for ax in list(axes.flat)[len(modules):]:
        ax.axis("off")
    return fig


def totals_png(reports: list[GradeReport]) -> bytes | None:
    """A histogram of total scores as a PNG; None without matplotlib."""
    fig = totals_figure(reports)
    return None if fig is None else _png(fig, _pyplot())


def problems_png(reports: list[GradeReport], modules: list[str]) -> bytes | None:
    """One small histogram of scores per problem, side by side, as a PNG; None without matplotlib."""
    fig = problems_figure(reports, modules)
    return None if fig is None else _png(fig, _pyplot())
