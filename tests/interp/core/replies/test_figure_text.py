"""What a model without vision is told about a figure (the driver's summary, read back)."""

from __future__ import annotations

import pytest

from interp.core.replies.figures import plot_text
from languages.plots import Plot

pytestmark = pytest.mark.fast  # pure units: no process, pty or server (see conftest.py)


def test_bars_with_titles_labels_and_heights():
    plot = Plot.from_dict({"title": "", "axes": [{
        "title": "Revenue per region", "xlabel": "region", "ylabel": "revenue",
        "series": [{"kind": "bar", "count": 4, "labels": ["North", "South", "East", "West"],
                    "values": [1234.5, 987.25, 400, 1500.0]}]}]})
    assert plot_text("/w/revenue.png", plot) == (
        "What /w/revenue.png shows:\n"
        "- bar chart titled 'Revenue per region'; x axis 'region'; y axis 'revenue'\n"
        "  - 4 bars: North 1234.5, South 987.25, East 400, West 1500")


def test_subplots_lines_points_histograms_and_the_bounds():
    many = [{"kind": "bar", "count": 40, "labels": [f"r{i}" for i in range(40)],
             "values": list(range(40))}]
    plot = Plot.from_dict({"title": "Overview", "more_axes": 1, "axes": [
        {"series": [{"kind": "line", "count": 10, "label": "sq", "x": [0, 9], "y": [0, 81]}]},
        {"series": [{"kind": "scatter", "count": 3, "x": [1, 3], "y": [4, 6]},
                    {"kind": "hist", "count": 10, "x": [1, 3], "total": 6}]},
        {"series": many}]})
    text = plot_text("f.png", plot)
    assert text.splitlines()[:6] == [
        "What f.png shows titled 'Overview':",
        "- plot 1 line chart",
        "  - a line labelled 'sq' of 10 points, x from 0 to 9, y from 0 to 81",
        "- plot 2 scatter, hist chart",
        "  - scattered points of 3 points, x from 1 to 3, y from 4 to 6",
        "  - a histogram of 6 values in 10 bins from 1 to 3"]
    assert "r11 11, and 28 more" in text and "r12" not in text
    assert text.endswith("- and 1 more plots")


def test_an_empty_figure_says_so():
    assert plot_text("e.png", Plot.from_dict({"axes": []})).endswith("- nothing: the figure is empty")


def test_a_pie_of_one_wedge_is_called_out():
    """Qwen2.5-Coder-1.5B on charts-market-share-pie (2026-11-28) drew one pie per company,
    each a single wedge, and called the task done."""
    plot = Plot.from_dict({"title": "", "axes": [{
        "title": "Share of Revenue for Stark", "xlabel": "", "ylabel": "",
        "series": [{"kind": "pie", "count": 1, "labels": ["Stark"], "values": [0.184561]}]}]})
    assert plot_text("/w/share_Stark.png", plot).endswith(
        "  - 1 wedge: Stark 0.184561 (a pie of one wedge shows no share: one pie with a wedge "
        "for each value does)")
