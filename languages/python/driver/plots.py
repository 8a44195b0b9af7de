"""What a matplotlib figure shows, for the Python driver: a bounded, JSON-ready summary.

Runs inside the user's python3 (3.8+), after its code has imported matplotlib; never imports
matplotlib itself and costs nothing until a figure is saved. languages/plots.py reads the
summary back: {"title", "axes": [{"title", "xlabel", "ylabel", "series": [{"kind", "count",
"label", "labels", "values", "x", "y", "total", "orientation"}], "more_series"}],
"more_axes"}. Histograms and pies are noted when Axes.hist / Axes.pie draw them (the artists
alone cannot tell a histogram from bars, nor which label belongs to which wedge).
"""

import functools

PLOT_AXES = 4  # axes described per figure
PLOT_SERIES = 6  # series described per axes
PLOT_ITEMS = 60  # bar or wedge labels and values listed per figure, all series together
PLOT_TEXT = 40  # characters of a title, label or tick name


def plot_text(value):
    """A label as bounded text."""
    text = "" if value is None else str(value)
    return text if len(text) <= PLOT_TEXT else text[:PLOT_TEXT - 1] + "\u2026"


def plot_number(value):
    """A finite float with 6 significant digits, else None."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    if number != number or number in (float("inf"), float("-inf")):
        return None
    return float("%.6g" % number)


def plot_span(values):
    """[min, max] of numbers (dates as text), or [first, last] of other values; None if empty."""
    import sys
    np = sys.modules.get("numpy")  # matplotlib has imported it
    try:
        array = np.ma.filled(np.ma.asarray(values, dtype=float), np.nan).ravel()
        array = array[np.isfinite(array)]
        return [plot_number(array.min()), plot_number(array.max())] if array.size else None
    except Exception:  # dates, strings, objects
        pass
    try:
        array = np.asarray(values).ravel()
        if array.dtype.kind == "M":
            array = array[~np.isnat(array)]
            return [str(array.min()), str(array.max())] if array.size else None
        items = list(array)
    except Exception:
        return None
    return [plot_text(items[0]), plot_text(items[-1])] if items else None


def plot_label(artist):
    """The legend label of an artist, or None for matplotlib's own '_child0' names."""
    try:
        label = artist.get_label()
    except Exception:
        return None
    return None if not label or str(label).startswith("_") else plot_text(label)


class PlotBudget(object):
    """How many more item labels and values a figure's summary may list."""

    def __init__(self):
        self.left = PLOT_ITEMS

    def take(self, wanted):
        taken = max(0, min(wanted, self.left))
        self.left -= taken
        return taken


def plot_ticks(axis):
    """The axis' tick names by position: the categories of a categorical axis, else the drawn
    tick labels (a figure has been drawn when it is summarised)."""
    mapping = getattr(getattr(axis, "units", None), "_mapping", None)
    if mapping:
        return [(float(place), str(name)) for name, place in mapping.items()]
    try:
        places = list(axis.get_majorticklocs())
        names = [tick.get_text() for tick in axis.get_majorticklabels()]
    except Exception:
        return []
    return [(float(p), n) for p, n in zip(places, names) if n]


def plot_tick_name(center, ticks):
    """The name of the tick nearest to a bar's center (within half a tick step), else the center."""
    if ticks:
        places = sorted(p for p, _ in ticks)
        steps = [b - a for a, b in zip(places, places[1:]) if b > a]
        reach = min(steps) / 2 if steps else 0.5
        place, name = min(ticks, key=lambda tick: abs(tick[0] - center))
        if abs(place - center) <= reach:
            return plot_text(name)
    return plot_text("%g" % center)


def plot_bars(ax, container, budget):
    horizontal = getattr(container, "orientation", None) == "horizontal"
    patches = list(container.patches)
    ticks = plot_ticks(ax.yaxis if horizontal else ax.xaxis)
    labels, values = [], []
    for rect in patches[:budget.take(len(patches))]:
        if horizontal:
            center, value = rect.get_y() + rect.get_height() / 2.0, rect.get_width()
        else:
            center, value = rect.get_x() + rect.get_width() / 2.0, rect.get_height()
        labels.append(plot_tick_name(center, ticks))
        values.append(plot_number(value))
    return {"kind": "bar", "count": len(patches), "label": plot_label(container),
            "labels": labels, "values": values,
            "orientation": "horizontal" if horizontal else "vertical"}


def plot_line(line):
    x, y = line.get_xdata(), line.get_ydata()
    style = line.get_linestyle()
    markers_only = style in ("None", "none", "", " ") and line.get_marker() not in (None, "", "None", "none", " ")
    return {"kind": "scatter" if markers_only else "line", "count": len(y),
            "label": plot_label(line), "x": plot_span(x), "y": plot_span(y)}


COLLECTION_KINDS = {"PathCollection": "scatter", "PolyCollection": "area",
                    "FillBetweenPolyCollection": "area", "QuadMesh": "mesh",
                    "LineCollection": "segments", "PolyQuadMesh": "mesh"}


def plot_collection(collection):
    kind = COLLECTION_KINDS.get(type(collection).__name__, type(collection).__name__.lower())
    if kind != "scatter":
        return {"kind": kind, "count": len(collection.get_paths()),
                "label": plot_label(collection)}
    offsets = collection.get_offsets()
    return {"kind": "scatter", "count": len(offsets), "label": plot_label(collection),
            "x": plot_span(offsets[:, 0]) if len(offsets) else None,
            "y": plot_span(offsets[:, 1]) if len(offsets) else None}


def plot_series(ax, budget):
    """Every series of one axes: lines, bars, collections, then histograms and pies."""
    series = [plot_line(line) for line in ax.get_lines() if line.get_visible()]
    on_axes = set(id(artist) for artist in list(ax.containers) + list(ax.patches))
    noted = [(drawn, summary) for drawn, summary in getattr(ax, "_interp_noted", ())
             if drawn and id(drawn[0]) in on_axes]
    noted_ids = set(id(artist) for drawn, _ in noted for artist in drawn)
    for container in ax.containers:
        if id(container) not in noted_ids and type(container).__name__ == "BarContainer":
            series.append(plot_bars(ax, container, budget))
    series.extend(plot_collection(c) for c in ax.collections if c.get_visible())
    for _, summary in noted:
        summary = dict(summary)
        keep = budget.take(len(summary.get("labels") or summary.get("values") or ()))
        for key in ("labels", "values"):
            if key in summary:
                summary[key] = summary[key][:keep]
        series.append(summary)
    if ax.images:
        series.append({"kind": "image", "count": len(ax.images), "label": None})
    return series


def plot_axes(ax, budget):
    series = plot_series(ax, budget)
    title = ax.get_title() or ax.get_title("left") or ax.get_title("right")
    return {"title": plot_text(title), "xlabel": plot_text(ax.get_xlabel()),
            "ylabel": plot_text(ax.get_ylabel()), "series": series[:PLOT_SERIES],
            "more_series": max(0, len(series) - PLOT_SERIES)}


def plot_summary(figure):
    """The bounded summary of a figure (call it after the figure was drawn or saved)."""
    budget = PlotBudget()
    axes = [ax for ax in figure.get_axes() if ax.get_label() != "<colorbar>"]
    suptitle = getattr(figure, "get_suptitle", None)
    return {"title": plot_text(suptitle() if suptitle else ""),
            "axes": [plot_axes(ax, budget) for ax in axes[:PLOT_AXES]],
            "more_axes": max(0, len(axes) - PLOT_AXES)}


def plot_artists(drawn):
    """The top-level artists Axes.hist drew: its BarContainers, or its patches (step)."""
    if type(drawn).__name__ == "BarContainer" or not isinstance(drawn, (list, tuple)):
        return [drawn]
    return [artist for part in drawn for artist in plot_artists(part)]


def plot_hist_note(ax, args, kwargs, result):
    import sys
    np = sys.modules.get("numpy")
    counts, bins, patches = result
    label = kwargs.get("label")
    return plot_artists(patches), {
        "kind": "hist", "count": len(bins) - 1, "total": plot_number(np.sum(counts)),
        "label": plot_text(label) if isinstance(label, str) else None,
        "x": [plot_number(bins[0]), plot_number(bins[-1])]}


def plot_pie_note(ax, args, kwargs, result):
    values = list(args[0] if args else kwargs.get("x", ()))
    labels = kwargs.get("labels")
    if labels is None and len(args) > 2:
        labels = args[2]
    wedges = getattr(result, "wedges", None) or result[0]
    return list(wedges), {
        "kind": "pie", "count": len(values), "label": None,
        "labels": [plot_text(name) for name in labels] if labels is not None else [],
        "values": [plot_number(value) for value in values]}


def plot_watch(axes_class, name, note):
    """Wrap Axes.NAME so that what it drew is noted on the axes (for plot_summary)."""
    original = getattr(axes_class, name, None)
    if original is None or getattr(original, "_interp_watch", False):
        return

    @functools.wraps(original)
    def method(ax, *args, **kwargs):
        result = original(ax, *args, **kwargs)
        try:
            drawn, summary = note(ax, args, kwargs, result)
            if drawn:
                ax.__dict__.setdefault("_interp_noted", []).append((drawn, summary))
        except Exception:  # a summary is never worth breaking the user's plot
            pass
        return result

    method._interp_watch = True
    setattr(axes_class, name, method)


def plot_watch_axes(module):
    """Note histograms and pies drawn on any Axes (module: matplotlib.axes, once imported)."""
    axes_class = getattr(module, "Axes", None)
    if axes_class is not None:
        plot_watch(axes_class, "hist", plot_hist_note)
        plot_watch(axes_class, "pie", plot_pie_note)
