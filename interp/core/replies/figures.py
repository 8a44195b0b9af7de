"""What a model that cannot see images is told about a figure: what it plots, in a few bounded
lines (kinds, titles, axis labels and the data: bar heights, line and point ranges, bins)."""

from __future__ import annotations

from languages.plots import AxesPlot, Plot, Series

MAX_ITEMS = 12  # bars or wedges listed per series
MAX_SERIES = 6  # series described per axes
MAX_AXES = 4


def plot_text(path: str, plot: Plot) -> str:
    """A short account of the figure saved at `path`, for a model without vision."""
    lines = [f"What {path} shows{_quoted(' titled', plot.title)}:"]
    for number, axes in enumerate(plot.axes[:MAX_AXES], 1):
        where = f"- plot {number}" if len(plot.axes) > 1 else "-"
        lines.append(f"{where} {_axes_head(axes)}")
        lines += [f"  - {_series(series)}" for series in axes.series[:MAX_SERIES]]
        hidden = axes.more_series + max(0, len(axes.series) - MAX_SERIES)
        if hidden:
            lines.append(f"  - and {hidden} more series")
    if not plot.axes:
        lines.append("- nothing: the figure is empty")
    hidden = plot.more_axes + max(0, len(plot.axes) - MAX_AXES)
    if hidden:
        lines.append(f"- and {hidden} more plots")
    return "\n".join(lines)


def _axes_head(axes: AxesPlot) -> str:
    kinds = ", ".join(axes.kinds) or "empty"
    parts = [f"{kinds} chart{_quoted(' titled', axes.title)}"]
    if axes.xlabel:
        parts.append(f"x axis {axes.xlabel!r}")
    if axes.ylabel:
        parts.append(f"y axis {axes.ylabel!r}")
    return "; ".join(parts)


def _series(series: Series) -> str:
    name = _quoted(" labelled", series.label)
    if series.kind in ("bar", "pie") and series.labels:
        what = ("bar" if series.kind == "bar" else "wedge") + ("s" if series.count != 1 else "")
        items = ", ".join(f"{label} {_number(value)}"
                          for label, value in list(series.items.items())[:MAX_ITEMS])
        more = series.count - min(len(series.labels), MAX_ITEMS)
        alone = (" (a pie of one wedge shows no share: one pie with a wedge for each value does)"
                 if series.kind == "pie" and series.count == 1 else "")
        return (f"{series.count} {what}{name}: {items}" + (f", and {more} more" if more > 0 else "")
                + alone)
    if series.kind == "hist":
        counted = f" of {_number(series.total)} values" if series.total is not None else ""
        return f"a histogram{name}{counted} in {series.count} bins{_range(' from', series.x)}"
    if series.kind in ("line", "scatter", "area"):
        what = {"line": "a line", "scatter": "scattered points", "area": "a filled area"}
        return (f"{what[series.kind]}{name} of {series.count} points"
                f"{_range(', x from', series.x)}{_range(', y from', series.y)}")
    return f"{series.kind}{name} ({series.count} items)"


def _range(prefix: str, bound) -> str:
    if bound is None:
        return ""
    low, high = bound
    return f"{prefix} {_number(low)} to {_number(high)}"


def _number(value) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    return "?" if value is None else str(value)


def _quoted(prefix: str, text: str | None) -> str:
    return f"{prefix} {text!r}" if text else ""
