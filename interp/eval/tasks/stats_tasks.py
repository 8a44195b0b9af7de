"""Tasks on tables: statistics and grouping, and pivot tables."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from functools import cache
from pathlib import Path
from random import Random

from interp.eval.tasks.datasets import FIRST, LAST, customers, sales, write_csv, write_customers, write_sales
from interp.eval.tasks.files import close, column, number, read_csv
from interp.eval.tasks.spec import Attempt, Number, Reference, Task, Words


# -- statistics and grouping ------------------------------------------------------------------
@cache
def _scores() -> tuple[tuple[str, str, float], ...]:
    rng = Random(2203)
    return tuple((f"{rng.choice(FIRST)} {rng.choice(LAST)}", rng.choice("ABC"),
                  round(min(100.0, max(0.0, rng.gauss(68, 14))), 1)) for _ in range(75))


def _make_students(folder: Path) -> None:
    write_csv(folder / "students.csv", ["name", "class", "score"], _scores())


_SCORES = [s for _, _, s in _scores()]

MEAN_MEDIAN = Task(
    id="stats-mean-median", category="stats",
    sentence="What are the mean and the median of the score column in students.csv? Round them "
             "to two decimals.",
    make=_make_students,
    answer=(Number(round(statistics.mean(_SCORES), 2), tol=0.006, rel=0, name="the mean"),
            Number(statistics.median(_SCORES), tol=0.006, rel=0, name="the median")),
    right=Reference("python", "import pandas as pd\ns = pd.read_csv('students.csv')['score']\n"
                              "print(f'mean {s.mean():.2f}, median {s.median():.2f}')"),
    wrong=Reference("python", "import csv\nrows = list(csv.reader(open('students.csv')))[2:]\n"
                              "import statistics as st\ns = [float(r[2]) for r in rows]\n"
                              "print(f'mean {st.mean(s):.2f}, median {st.median(s):.2f}')"),
)


def _q2_units() -> Counter:
    units: Counter = Counter()
    for sale in sales():
        if sale.quarter == 2:
            units[sale.product] += sale.units
    return units


_Q2_TOP, _Q2_UNITS = _q2_units().most_common(1)[0]

TOP_PRODUCT = Task(
    id="stats-top-product-q2", category="stats",
    sentence="Which product sold the most units in the second quarter (April to June) according "
             "to sales.csv, and how many units was that?",
    make=write_sales,
    answer=(Words((_Q2_TOP,)), Number(_Q2_UNITS, tol=0.5, rel=0, name="its units")),
    right=Reference("python", "import pandas as pd\ndf = pd.read_csv('sales.csv', parse_dates=['date'])\n"
                              "q2 = df[df.date.dt.quarter == 2].groupby('product').units.sum()\n"
                              "print(q2.idxmax(), q2.max())"),
    wrong=Reference("python", "import pandas as pd\ndf = pd.read_csv('sales.csv')\n"
                              "t = df.groupby('product').units.sum()\nprint(t.idxmax(), t.max())"),
)


def _country_counts() -> Counter:
    return Counter(c.country for c in customers())


def _check_country_counts(attempt: Attempt):
    header, rows = read_csv(attempt.folder / "country_counts.csv")
    where, count = column(header, "country"), column(header, "count")
    if where is None or count is None:
        yield f"country_counts.csv has columns {header}, not country and count"
        return
    found = {row[where]: number(row[count]) for row in rows if len(row) > max(where, count)}
    if found != {k: float(v) for k, v in _country_counts().items()}:
        yield f"country_counts.csv holds {found}, not the counts per country"
    values = [number(row[count]) for row in rows if len(row) > count]
    if values != sorted(values, reverse=True):
        yield "country_counts.csv is not sorted largest first"


COUNTRY_COUNTS = Task(
    id="stats-customers-per-country", category="stats",
    sentence="Count the customers per country in customers.csv and save the counts to "
             "country_counts.csv with the columns country and count, largest first. Which "
             "country has the most customers?",
    make=write_customers, files=_check_country_counts,
    answer=(Words((_country_counts().most_common(1)[0][0],)),),
    right=Reference("python", "import pandas as pd\nc = pd.read_csv('customers.csv').country.value_counts()\n"
                              "c.rename_axis('country').reset_index(name='count').to_csv('country_counts.csv', index=False)\n"
                              "print('most:', c.index[0])"),
    wrong=Reference("python", "import pandas as pd\nc = pd.read_csv('customers.csv')[:-1].country.value_counts()\n"
                              "c.rename_axis('country').reset_index(name='count').to_csv('country_counts.csv', index=False)\n"
                              "print('most:', c.index[0])"),
)


# -- pivot tables -----------------------------------------------------------------------------
def _units_by_region_quarter() -> dict[tuple[str, int], int]:
    table: dict[tuple[str, int], int] = defaultdict(int)
    for sale in sales():
        table[sale.region, sale.quarter] += sale.units
    return table


def _quarter_of(name: str) -> int | None:
    text = name.strip().upper()
    for quarter in range(1, 5):
        if text in (str(quarter), f"Q{quarter}", f"{quarter}.0") or text.endswith(f"Q{quarter}"):
            return quarter
    return None


def _check_pivot(attempt: Attempt):
    header, rows = read_csv(attempt.folder / "pivot.csv")
    quarters = {q: i for i, h in enumerate(header) if (q := _quarter_of(h)) is not None}
    if sorted(quarters) != [1, 2, 3, 4]:
        yield f"pivot.csv's columns are {header}, not the quarters 1-4"
        return
    table = _units_by_region_quarter()
    by_region = {row[0]: row for row in rows if row}
    for region in {r for r, _ in table}:
        row = by_region.get(region)
        if row is None:
            yield f"pivot.csv has no row for {region}"
            return
        for quarter, index in quarters.items():
            got = number(row[index]) if len(row) > index else None
            if not close(got, table[region, quarter], 0.01, 0):
                yield f"pivot.csv: {region} in Q{quarter} is {got}, not {table[region, quarter]}"
                return


PIVOT_UNITS = Task(
    id="pivot-units-region-quarter", category="pivot",
    sentence="Make a pivot table from sales.csv with the regions as rows, the quarters as columns "
             "and the total units sold as values, and save it as pivot.csv.",
    make=write_sales, files=_check_pivot,
    right=Reference("python", "import pandas as pd\ndf = pd.read_csv('sales.csv', parse_dates=['date'])\n"
                              "df['quarter'] = 'Q' + df.date.dt.quarter.astype(str)\n"
                              "p = df.pivot_table(index='region', columns='quarter', values='units', aggfunc='sum')\n"
                              "p.to_csv('pivot.csv')\nprint(p)"),
    wrong=Reference("python", "import pandas as pd\ndf = pd.read_csv('sales.csv', parse_dates=['date'])\n"
                              "df['quarter'] = 'Q' + df.date.dt.quarter.astype(str)\n"
                              "p = df.pivot_table(index='region', columns='quarter', values='units', aggfunc='count')\n"
                              "p.to_csv('pivot.csv')\nprint(p)"),
)

_CLASSES = ("Red", "Blue", "Green")
_SUBJECTS = ("math", "science", "english")


@cache
def _grades() -> tuple[tuple[str, str, str, int], ...]:
    rng = Random(2207)
    bias = {("Blue", "math"): 6, ("Red", "english"): 5, ("Green", "science"): 4}
    return tuple((f"{rng.choice(FIRST)} {rng.choice(LAST)}", cls, subject,
                  min(100, max(30, round(rng.gauss(72 + bias.get((cls, subject), 0), 9)))))
                 for cls in _CLASSES for _ in range(12) for subject in _SUBJECTS)


def _grade_means() -> dict[tuple[str, str], float]:
    values = defaultdict(list)
    for _, cls, subject, grade in _grades():
        values[cls, subject].append(grade)
    return {k: statistics.mean(v) for k, v in values.items()}


def _check_grades(attempt: Attempt):
    header, rows = read_csv(attempt.folder / "grades_pivot.csv")
    columns = {s: column(header, s) for s in _SUBJECTS}
    if None in columns.values():
        yield f"grades_pivot.csv's columns are {header}, not the subjects"
        return
    by_class = {row[0]: row for row in rows if row}
    for (cls, subject), mean in _grade_means().items():
        row, index = by_class.get(cls), columns[subject]
        got = number(row[index]) if row is not None and len(row) > index else None
        if not close(got, mean, 0.051, 0):
            yield f"grades_pivot.csv: {cls}/{subject} is {got}, not {mean:.1f}"
            return


_MEANS = _grade_means()

PIVOT_MEANS = Task(
    id="pivot-mean-grades", category="pivot",
    sentence="From grades.csv, build a table of the average grade per class (rows) and subject "
             "(columns), rounded to one decimal, and save it to grades_pivot.csv. Which class has "
             "the highest average in math?",
    make=lambda folder: write_csv(folder / "grades.csv", ["student", "class", "subject", "grade"],
                                  _grades()),
    files=_check_grades,
    answer=(Words((max(_CLASSES, key=lambda c: _MEANS[c, "math"]),)),),
    right=Reference("python", "import pandas as pd\ndf = pd.read_csv('grades.csv')\n"
                              "p = df.pivot_table(index='class', columns='subject', values='grade', aggfunc='mean').round(1)\n"
                              "p.to_csv('grades_pivot.csv')\nprint('best in math:', p['math'].idxmax())"),
    wrong=Reference("python", "import pandas as pd\ndf = pd.read_csv('grades.csv')\n"
                              "p = df.pivot_table(index='class', columns='subject', values='grade', aggfunc='median')\n"
                              "p.to_csv('grades_pivot.csv')\nprint('best in math:', p['math'].idxmin())"),
)

STATS = (MEAN_MEDIAN, TOP_PRODUCT, COUNTRY_COUNTS)
PIVOTS = (PIVOT_UNITS, PIVOT_MEANS)
