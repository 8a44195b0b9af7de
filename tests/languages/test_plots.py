"""What a saved figure plots: the Python driver's summary (real python3 and matplotlib), read
back as typed records (languages/plots.py) on the figure's Display."""

from __future__ import annotations

import sys
import textwrap

import pytest

from languages.records import Display
from languages.plots import Plot, Series, plot_of
from languages.protocol import RunnerConfig
from languages.python import PythonRunner

pytest.importorskip("matplotlib")  # the runner uses this interpreter's packages


@pytest.fixture(scope="module")
def plotting(tmp_path_factory):
    """A shared runner on this interpreter (which has matplotlib and pandas)."""
    cwd = tmp_path_factory.mktemp("plots")
    runner = PythonRunner(RunnerConfig(python=sys.executable, cwd=str(cwd), grace=5.0))
    runner.start()
    for _ in runner.run("import matplotlib.pyplot as plt\nimport pandas as pd"):
        pass
    yield runner
    runner.stop()


def plot(run, runner, code: str) -> tuple[Display, Plot]:
    out, displays, res = run(runner, textwrap.dedent(code).lstrip("\n"))
    assert res.ok, out
    assert len(displays) == 1, displays
    assert displays[0].plot is not None, displays[0].data
    return displays[0], displays[0].plot


def test_a_bar_chart_gives_its_labels_heights_title_and_axis_labels(plotting, run):
    shown, found = plot(run, plotting, """
        plt.bar(['East', 'West', 'North'], [10.5, 20, 7])
        plt.title('Revenue per region'); plt.xlabel('region'); plt.ylabel('USD')
        plt.show()
    """)
    assert shown.kind == "image" and shown.text == f"[figure saved: {shown.path}]"
    (axes,) = found.axes
    assert (axes.title, axes.xlabel, axes.ylabel, axes.kinds) == ("Revenue per region", "region",
                                                                  "USD", ("bar",))
    (bars,) = axes.series
    assert bars.items == {"East": 10.5, "West": 20.0, "North": 7.0}
    assert (bars.count, bars.orientation) == (3, "vertical")


def test_pandas_bars_and_horizontal_bars_are_named_by_their_ticks(plotting, run):
    _, found = plot(run, plotting, """
        fig, (a, b) = plt.subplots(1, 2)
        pd.Series([3, 5], index=['x', 'y'], name='n').plot.bar(ax=a)
        b.barh(['p', 'q', 'r'], [1, 2, 3])
    """)
    first, second = found.axes
    assert first.series[0].items == {"x": 3.0, "y": 5.0} and first.series[0].label == "n"
    assert second.series[0].items == {"p": 1.0, "q": 2.0, "r": 3.0}
    assert second.series[0].orientation == "horizontal"


def test_a_line_gives_its_length_and_ranges_and_dates_as_text(plotting, run):
    _, found = plot(run, plotting, """
        import datetime as dt
        days = [dt.date(2024, 3, 1) + dt.timedelta(days=i) for i in range(30)]
        plt.plot(days, [i % 7 - 2.5 for i in range(30)], label='temp')
        plt.plot([0, 1], [5, 5])
    """)
    line, flat = found.axes[0].series
    assert (line.kind, line.count, line.label) == ("line", 30, "temp")
    assert line.y == (-2.5, 3.5) and line.x == ("2024-03-01", "2024-03-30")
    assert (flat.count, flat.x, flat.y, flat.label) == (2, (0.0, 1.0), (5.0, 5.0), None)


def test_scatter_points_and_markers_only_lines_count_as_scatter(plotting, run):
    _, found = plot(run, plotting, """
        plt.scatter(range(50), [i * i for i in range(50)])
        plt.plot([1, 2, 3], [3, 2, 1], 'o')
    """)
    kinds = {s.kind: s for s in found.series}
    assert set(kinds) == {"scatter"}
    counts = sorted((s.count, s.x, s.y) for s in found.series)
    assert counts == [(3, (1.0, 3.0), (1.0, 3.0)), (50, (0.0, 49.0), (0.0, 2401.0))]


def test_a_pie_gives_its_labels_and_values(plotting, run):
    _, found = plot(run, plotting, "plt.pie([1, 2, 3], labels=['a', 'b', 'c'], autopct='%1.0f%%')")
    (pie,) = found.series
    assert (pie.kind, pie.count, pie.items) == ("pie", 3, {"a": 1.0, "b": 2.0, "c": 3.0})


def test_a_histogram_gives_bins_and_the_count_not_bars(plotting, run):
    _, found = plot(run, plotting, """
        import numpy as np
        plt.hist(np.arange(200) % 37, bins=10)
        pd.Series(range(10)).plot.hist(bins=4, ax=plt.gca())
    """)
    assert found.kinds == ("hist",)
    assert [(s.count, s.total, s.x) for s in found.series] == [(10, 200.0, (0.0, 36.0)),
                                                                (4, 10.0, (0.0, 9.0))]


def test_savefig_without_show_reports_the_file_and_what_it_plots(plotting, run, tmp_path):
    target = tmp_path / "revenue.png"
    out, displays, res = run(plotting, f"plt.bar(['a', 'b'], [1, 2])\nplt.suptitle('Sales')\n"
                                       f"plt.savefig({str(target)!r})\nplt.savefig('relative.png')")
    assert res.ok and out == ""
    assert [(d.kind, d.text) for d in displays] == [("plot", ""), ("plot", "")]
    assert displays[0].path == str(target)
    assert displays[1].path == f"{plotting.config.cwd}/relative.png"  # absolute, from the cwd
    assert displays[0].plot.title == "Sales"
    assert displays[0].plot.series[0].items == {"a": 1.0, "b": 2.0}
    assert res.model_text() == ""  # the model is told nothing more than before


def test_the_state_at_each_save_is_what_is_reported(plotting, run, tmp_path):
    out, displays, res = run(plotting, "plt.plot([1, 2])\nplt.savefig('one.png')\n"
                                       "plt.plot([1, 2, 3])\nplt.savefig('two.png')\n"
                                       "import io; plt.savefig(io.BytesIO())")
    assert res.ok
    assert [[s.count for s in d.plot.series] for d in displays] == [[2], [2, 3]]


def test_hist_and_pie_stay_what_matplotlib_returns(plotting, run):
    out, _, res = run(plotting, "n, bins, patches = plt.hist([1, 2, 2, 3], bins=3)\n"
                                "print(n.tolist(), len(bins), type(patches).__name__)\n"
                                "print(plt.hist.__name__, plt.gca().hist.__doc__ is not None)\n"
                                "plt.close('all')")
    assert res.ok and out == "[1.0, 2.0, 1.0] 4 BarContainer\nhist True\n"


def test_a_figure_summary_is_bounded(plotting, run):
    _, found = plot(run, plotting, """
        fig, axes = plt.subplots(2, 3)
        for ax in axes.flat:
            for k in range(8):
                ax.bar([f'{k}-{i}' for i in range(30)], range(30))
    """)
    assert len(found.axes) == 4 and found.more_axes == 2
    assert all(len(a.series) == 6 and a.more_series == 2 for a in found.axes)
    assert sum(len(s.labels) for s in found.series) == 60  # listed items, all series together
    assert all(s.count == 30 for s in found.series)


def test_a_block_without_a_figure_has_no_summary_and_imports_nothing(make_runner, run, tmp_path):
    fresh = make_runner(PythonRunner, python=sys.executable, cwd=str(tmp_path))
    out, displays, res = run(fresh, "import sys\nprint(sorted(m for m in ('matplotlib', 'numpy') "
                                    "if m in sys.modules))")
    assert out == "[]\n" and displays == []


@pytest.mark.fast
@pytest.mark.parametrize("raw", [None, [], {"axes": "x"}, {"title": "t"}])
def test_a_malformed_summary_reads_as_none(raw):
    assert Plot.from_dict(raw) is None
    assert plot_of({"plot": raw}) is None and plot_of(None) is None


@pytest.mark.fast
def test_malformed_parts_of_a_summary_are_left_out():
    found = Plot.from_dict({"title": 3, "axes": [
        {"title": "t", "series": [{"kind": "bar", "count": 2, "labels": ["a", 1],
                                   "values": [1, "x"], "x": [1, "b"], "y": [0, 2]},
                                  {"kind": "line", "count": -1}, {"count": 3}, "junk"]},
        "junk"], "more_axes": True})
    assert found == Plot(title="", axes=(found.axes[0],), more_axes=0)
    (bars,) = found.axes[0].series
    assert bars == Series(kind="bar", count=2, labels=("a", "1"), values=(1.0, None), x=None,
                          y=(0.0, 2.0))
    assert Display("plot", "", "/x.png", {"plot": found.axes and {"axes": []}}).plot == Plot()
