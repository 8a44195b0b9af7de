"""Chart tasks, checked by what the saved figure plots (the runner's summary), not by pixels."""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from functools import cache
from random import Random

from languages.plots import Plot, Series

from interp.eval.tasks.datasets import customers, sales, write_csv, write_customers, write_sales
from interp.eval.tasks.files import close
from interp.eval.tasks.spec import Attempt, Number, Reference, Task


def _missing_figure(attempt: Attempt, name: str) -> str:
    if (attempt.folder / name).exists():
        return f"{name} exists but no matplotlib figure was saved to it"
    return f"{name} was not saved"


def _bars(plot: Plot) -> Series | None:
    bars = plot.of_kind("bar")
    return bars[0] if len(bars) == 1 else None


# -- revenue per region: a bar chart of totals --------------------------------------------------
def _revenue() -> dict[str, float]:
    totals: dict[str, float] = defaultdict(float)
    for sale in sales():
        totals[sale.region] += sale.revenue
    return dict(totals)


def _check_revenue(attempt: Attempt):
    plot = attempt.plot("revenue.png")
    if plot is None:
        yield _missing_figure(attempt, "revenue.png")
        return
    bars = _bars(plot)
    if bars is None:
        yield f"revenue.png shows {', '.join(plot.kinds) or 'nothing'}, not one set of bars"
        return
    got = {label.strip().lower(): value for label, value in bars.items.items()}
    want = {region.lower(): total for region, total in _revenue().items()}
    if bars.count != len(want) or set(got) != set(want):
        yield f"revenue.png has {bars.count} bars ({', '.join(bars.labels[:6])}), not one per region"
        return
    for region, total in want.items():
        if not close(got[region], total, 0.5, 0.01):
            yield f"revenue.png: the {region} bar is {got[region]}, not {total:.2f}"
            return


REVENUE_CHART = Task(
    id="charts-revenue-by-region", category="charts",
    sentence="Summarise sales.csv: total revenue (units*price) per region, and save a bar chart "
             "of it to revenue.png",
    make=write_sales, files=_check_revenue,
    answer=tuple(Number(round(total, 2), tol=0.5, rel=0.001, name=f"{region}'s revenue")
                 for region, total in sorted(_revenue().items())),
    right=Reference("python", "import pandas as pd\nimport matplotlib.pyplot as plt\n"
                              "df = pd.read_csv('sales.csv')\ndf['revenue'] = df.units * df.price\n"
                              "t = df.groupby('region').revenue.sum()\nt.plot.bar(title='Revenue per region')\n"
                              "plt.savefig('revenue.png')\nprint(t.round(2).to_string())"),
    wrong=Reference("python", "import pandas as pd\nimport matplotlib.pyplot as plt\n"
                              "df = pd.read_csv('sales.csv')\ndf['revenue'] = df.units * df.price\n"
                              "df.plot.bar(x='region', y='revenue')\nplt.savefig('revenue.png')\n"
                              "print(df.groupby('region').revenue.sum().round(2).to_string())"),
)


# -- daily temperature: a line ----------------------------------------------------------------
@cache
def _weather() -> tuple[tuple[str, float], ...]:
    rng = Random(2208)
    return tuple((f"2024-03-{1 + d:02d}" if d < 31 else f"2024-04-{d - 30:02d}",
                  round(8 + 6 * math.sin(d / 9) + rng.uniform(-2, 2), 1)) for d in range(60))


def _check_temperature(attempt: Attempt):
    plot = attempt.plot("temperature.png")
    if plot is None:
        yield _missing_figure(attempt, "temperature.png")
        return
    lines = plot.of_kind("line")
    temps = [t for _, t in _weather()]
    if not lines:
        yield f"temperature.png shows {', '.join(plot.kinds) or 'nothing'}, not a line"
        return
    line = lines[0]
    if line.count != len(temps):
        yield f"temperature.png's line has {line.count} points, not {len(temps)}"
    elif line.y is None or not (close(line.y[0], min(temps)) and close(line.y[1], max(temps))):
        yield f"temperature.png's line runs from {line.y}, not from {min(temps)} to {max(temps)}"
    titles = " ".join([plot.title, *(a.title for a in plot.axes)]).lower()
    if "daily temperature" not in titles:
        yield "temperature.png is not titled 'Daily temperature'"


TEMPERATURE_LINE = Task(
    id="charts-temperature-line", category="charts",
    sentence="Plot the daily temperature from weather.csv as a line chart titled \"Daily "
             "temperature\" and save it as temperature.png.",
    make=lambda folder: write_csv(folder / "weather.csv", ["date", "temp_c"], _weather()),
    files=_check_temperature,
    right=Reference("python", "import pandas as pd\nimport matplotlib.pyplot as plt\n"
                              "df = pd.read_csv('weather.csv', parse_dates=['date'])\n"
                              "plt.plot(df.date, df.temp_c)\nplt.title('Daily temperature')\n"
                              "plt.savefig('temperature.png')\nprint('saved temperature.png')"),
    wrong=Reference("python", "import pandas as pd\nimport matplotlib.pyplot as plt\n"
                              "df = pd.read_csv('weather.csv').head(30)\n"
                              "plt.plot(df.date, df.temp_c)\nplt.title('Daily temperature')\n"
                              "plt.savefig('temperature.png')\nprint('saved temperature.png')"),
)


# -- height and weight: a scatter and a correlation -------------------------------------------
@cache
def _people() -> tuple[tuple[float, float], ...]:
    rng = Random(2209)
    rows = []
    for _ in range(80):
        height = round(rng.gauss(172, 9), 1)
        rows.append((height, round(0.9 * height - 85 + rng.gauss(0, 7), 1)))
    return tuple(rows)


def _check_scatter(attempt: Attempt):
    plot = attempt.plot("scatter.png")
    if plot is None:
        yield _missing_figure(attempt, "scatter.png")
        return
    points = plot.of_kind("scatter")
    if not points:
        yield f"scatter.png shows {', '.join(plot.kinds) or 'nothing'}, not scattered points"
        return
    heights, weights = ([p[i] for p in _people()] for i in (0, 1))
    spans = {(min(heights), max(heights)), (min(weights), max(weights))}
    got = points[0]
    if got.count != len(heights):
        yield f"scatter.png has {got.count} points, not {len(heights)}"
    elif {tuple(got.x or ()), tuple(got.y or ())} != spans:
        yield f"scatter.png's points span x {got.x} and y {got.y}, not the heights and weights"


SCATTER = Task(
    id="charts-scatter-correlation", category="charts",
    sentence="Make a scatter plot of weight against height from people.csv, save it as "
             "scatter.png, and tell me the correlation coefficient between them.",
    make=lambda folder: write_csv(folder / "people.csv", ["height_cm", "weight_kg"], _people()),
    files=_check_scatter,
    answer=(Number(statistics.correlation(*zip(*_people())), tol=0.005, rel=0,
                   name="the correlation"),),
    right=Reference("python", "import pandas as pd\nimport matplotlib.pyplot as plt\n"
                              "df = pd.read_csv('people.csv')\nplt.scatter(df.height_cm, df.weight_kg)\n"
                              "plt.savefig('scatter.png')\nprint(f'r = {df.height_cm.corr(df.weight_kg):.3f}')"),
    wrong=Reference("python", "import pandas as pd\nimport matplotlib.pyplot as plt\n"
                              "df = pd.read_csv('people.csv')\nplt.plot(df.height_cm, df.weight_kg)\n"
                              "plt.savefig('scatter.png')\nprint(f'r = {df.height_cm.corr(df.weight_kg):.3f}')"),
)


# -- ages: a histogram with 10 bins -----------------------------------------------------------
def _check_ages(attempt: Attempt):
    plot = attempt.plot("ages.png")
    if plot is None:
        yield _missing_figure(attempt, "ages.png")
        return
    total = len(customers())
    hists, bars = plot.of_kind("hist"), plot.of_kind("bar")
    if hists:
        if hists[0].count != 10 or not close(hists[0].total, total, 0, 0):
            yield f"ages.png: a histogram of {hists[0].total} values in {hists[0].count} bins, not {total} in 10"
    elif bars:  # numpy's histogram drawn as bars
        counted = sum(v or 0 for v in bars[0].values)
        if bars[0].count != 10 or counted != total:
            yield f"ages.png: {bars[0].count} bars counting {counted}, not 10 bins counting {total}"
    else:
        yield f"ages.png shows {', '.join(plot.kinds) or 'nothing'}, not a histogram"


AGE_HISTOGRAM = Task(
    id="charts-age-histogram", category="charts",
    sentence="Draw a histogram of the customers' ages in customers.csv with 10 bins and save it "
             "to ages.png.",
    make=write_customers, files=_check_ages,
    right=Reference("python", "import pandas as pd\nimport matplotlib.pyplot as plt\n"
                              "plt.hist(pd.read_csv('customers.csv').age, bins=10)\n"
                              "plt.savefig('ages.png')\nprint('saved ages.png')"),
    wrong=Reference("python", "import pandas as pd\nimport matplotlib.pyplot as plt\n"
                              "plt.hist(pd.read_csv('customers.csv').age)\nplt.close()\n"
                              "plt.hist(pd.read_csv('customers.csv').age, bins=5)\n"
                              "plt.savefig('ages.png')\nprint('saved ages.png')"),
)


# -- market share: a pie --------------------------------------------------------------------------
_MARKET = (("Acme", 1200, 58000.0), ("Globex", 950, 71500.0), ("Initech", 400, 23800.0),
           ("Umbrella", 780, 40100.0), ("Hooli", 1500, 39000.0), ("Stark", 300, 52600.0))


def _check_pie(attempt: Attempt):
    plot = attempt.plot("share.png")
    if plot is None:
        yield _missing_figure(attempt, "share.png")
        return
    pies = plot.of_kind("pie")
    if not pies:
        yield f"share.png shows {', '.join(plot.kinds) or 'nothing'}, not a pie"
        return
    pie = pies[0]
    total = sum(v or 0 for v in pie.values) or 1
    got = {label.strip(): (value or 0) / total for label, value in pie.items.items()}
    revenue = sum(r for *_, r in _MARKET)
    want = {name: r / revenue for name, _, r in _MARKET}
    if set(got) != set(want):
        yield f"share.png's wedges are labelled {sorted(got)}, not with the companies"
    elif any(not close(got[name], share, 0.002, 0) for name, share in want.items()):
        yield "share.png's wedges are not the companies' shares of revenue"


PIE = Task(
    id="charts-market-share-pie", category="charts",
    sentence="Save a pie chart of each company's share of revenue in market.csv to share.png, "
             "with the company names as labels.",
    make=lambda folder: write_csv(folder / "market.csv", ["company", "units", "revenue"], _MARKET),
    files=_check_pie,
    right=Reference("python", "import pandas as pd\nimport matplotlib.pyplot as plt\n"
                              "df = pd.read_csv('market.csv')\nplt.pie(df.revenue, labels=df.company, autopct='%1.1f%%')\n"
                              "plt.savefig('share.png')\nprint('saved share.png')"),
    wrong=Reference("python", "import pandas as pd\nimport matplotlib.pyplot as plt\n"
                              "df = pd.read_csv('market.csv')\nplt.pie(df.units, labels=df.company)\n"
                              "plt.savefig('share.png')\nprint('saved share.png')"),
)

TASKS = (REVENUE_CHART, TEMPERATURE_LINE, SCATTER, AGE_HISTOGRAM, PIE)
