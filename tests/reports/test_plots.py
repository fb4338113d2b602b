"""The plots are PNGs of the right size; without matplotlib there are none (and the summary says so)."""

import io

from autograder.reports import plots
from tests.helpers import make_report

REPORTS = [make_report(str(i), {"p": [("t", 3, i % 2 == 0)], "q": [("u", 1, True)]}) for i in range(5)]


def test_pngs_of_totals_and_one_panel_per_problem():
    from PIL import Image

    totals = Image.open(io.BytesIO(plots.totals_png(REPORTS)))
    panels = Image.open(io.BytesIO(plots.problems_png(REPORTS, ["p", "q"])))
    assert totals.format == panels.format == "PNG"
    assert totals.size == (600, 350) and panels.size == (800, 280)


def test_no_matplotlib_no_plot(monkeypatch):
    monkeypatch.setattr(plots, "_pyplot", lambda: None)
    assert plots.totals_png(REPORTS) is None and plots.problems_png(REPORTS, ["p"]) is None


def test_a_handful_of_partial_scores_is_visible_beside_hundreds_of_full_marks():
    import matplotlib.pyplot as plt

    many = [make_report(str(i), {"p": [("t", 3, True), ("u", 2, i >= 3)]}) for i in range(253)]  # 3 partial, 250 full
    for fig in (plots.problems_figure(many, ["p"]), plots.totals_figure(many)):
        ax = fig.axes[0]
        assert ax.get_yscale() == "log"
        labels = [t.get_text() for t in ax.texts if t.get_text()]
        assert labels == ["3", "250"], labels  # each bar's count is written on it
        plt.close(fig)
