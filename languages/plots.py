"""What a saved matplotlib figure plots, as typed records (the driver's summary read back).

The Python driver (`python/driver/plots.py`) summarises each figure it saves, and each figure the
code saved itself with `savefig`, into a bounded dict carried in the figure's Display
(`data["plot"]`); `Plot.from_dict` reads it back, leaving out what is malformed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

Bound = tuple[float, float] | tuple[str, str]  # (min, max) of numbers, or (first, last) as text


@dataclass(frozen=True)
class Series:
    """One thing drawn on an axes: bars, a line, scattered points, a histogram, a pie...

    `count` is how many bars, points, bins or wedges it has (all of them); `labels` and
    `values` list the first bars or wedges (name and height, width or value); `x` and `y` are
    the ranges of a line's or a scatter's data, `x` the bin range of a histogram, whose
    `total` is how many values it counted."""

    kind: str  # "bar" | "line" | "scatter" | "hist" | "pie" | "area" | "mesh" | "image" | ...
    count: int
    label: str | None = None  # the legend label
    labels: tuple[str, ...] = ()
    values: tuple[float | None, ...] = ()
    x: Bound | None = None
    y: Bound | None = None
    total: float | None = None
    orientation: str | None = None  # bars: "vertical" | "horizontal"

    @classmethod
    def from_dict(cls, raw: object) -> Series | None:
        """The series in a driver's summary, or None when it is malformed."""
        if not isinstance(raw, Mapping) or not isinstance(raw.get("kind"), str):
            return None
        count = raw.get("count")
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            return None
        return cls(kind=raw["kind"], count=count, label=_text(raw.get("label")),
                   labels=tuple(str(v) for v in _list(raw.get("labels"))),
                   values=tuple(_number(v) for v in _list(raw.get("values"))),
                   x=_bound(raw.get("x")), y=_bound(raw.get("y")), total=_number(raw.get("total")),
                   orientation=_text(raw.get("orientation")))

    @property
    def items(self) -> dict[str, float | None]:
        """Bar or wedge label -> value, for the items listed."""
        return dict(zip(self.labels, self.values))


@dataclass(frozen=True)
class AxesPlot:
    """One axes (subplot): its title, axis labels and what was drawn on it."""

    title: str = ""
    xlabel: str = ""
    ylabel: str = ""
    series: tuple[Series, ...] = ()
    more_series: int = 0  # series left out of `series`

    @property
    def kinds(self) -> tuple[str, ...]:
        """The kinds of its series, each once, in order."""
        return tuple(dict.fromkeys(s.kind for s in self.series))

    @classmethod
    def from_dict(cls, raw: object) -> AxesPlot | None:
        """The axes in a driver's summary, or None when it is malformed."""
        if not isinstance(raw, Mapping):
            return None
        series = tuple(s for s in map(Series.from_dict, _list(raw.get("series"))) if s is not None)
        return cls(title=_text(raw.get("title")) or "", xlabel=_text(raw.get("xlabel")) or "",
                   ylabel=_text(raw.get("ylabel")) or "", series=series,
                   more_series=_count(raw.get("more_series")))


@dataclass(frozen=True)
class Plot:
    """A figure: its title (suptitle) and its axes (the first few; `more_axes` left out)."""

    title: str = ""
    axes: tuple[AxesPlot, ...] = ()
    more_axes: int = 0

    @property
    def kinds(self) -> tuple[str, ...]:
        """The kinds drawn on any of its axes, each once, in order."""
        return tuple(dict.fromkeys(k for a in self.axes for k in a.kinds))

    @property
    def series(self) -> tuple[Series, ...]:
        """Every series of every axes listed."""
        return tuple(s for a in self.axes for s in a.series)

    def of_kind(self, *kinds: str) -> tuple[Series, ...]:
        """The series of these kinds."""
        return tuple(s for s in self.series if s.kind in kinds)

    @classmethod
    def from_dict(cls, raw: object) -> Plot | None:
        """The figure summary a driver sent, or None when it is missing or malformed."""
        if not isinstance(raw, Mapping) or not isinstance(raw.get("axes"), list):
            return None
        axes = tuple(a for a in map(AxesPlot.from_dict, raw["axes"]) if a is not None)
        return cls(title=_text(raw.get("title")) or "", axes=axes,
                   more_axes=_count(raw.get("more_axes")))


def plot_of(data: Mapping[str, Any] | None) -> Plot | None:
    """The Plot in a display's data, if it carries one."""
    return Plot.from_dict(data.get("plot")) if isinstance(data, Mapping) else None


def _list(value: object) -> list:
    return value if isinstance(value, list) else []


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _bound(value: object) -> Bound | None:
    if not isinstance(value, list) or len(value) != 2:
        return None
    numbers = [_number(v) for v in value]
    if None not in numbers:
        return numbers[0], numbers[1]
    return (value[0], value[1]) if all(isinstance(v, str) for v in value) else None
