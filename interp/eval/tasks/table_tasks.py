"""Tasks on tables: statistics and grouping, cleaning, pivot tables."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from functools import cache
from pathlib import Path
from random import Random

from interp.eval.tasks.datasets import (FIRST, LAST, customers, sales, write_csv,
                                        write_customers, write_sales)
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


# -- cleaning ---------------------------------------------------------------------------------
@cache
def _sensors() -> tuple[tuple[str, str, float | None, int], ...]:
    rng = Random(2204)
    base = {"S1": 21.0, "S2": 17.5, "S3": 26.0}
    rows = []
    for hour in range(48):
        for sensor, level in base.items():
            temp = round(level + rng.uniform(-2.5, 2.5), 2)
            rows.append((f"2024-05-{1 + hour // 24:02d} {hour % 24:02d}:00", sensor,
                         None if rng.random() < 0.08 else temp, rng.randint(30, 70)))
    return tuple(rows)


def _sensor_means() -> dict[str, float]:
    values = defaultdict(list)
    for _, sensor, temp, _ in _sensors():
        if temp is not None:
            values[sensor].append(temp)
    return {k: statistics.mean(v) for k, v in values.items()}


def _make_sensors(folder: Path) -> None:
    write_csv(folder / "sensors.csv", ["timestamp", "sensor", "temperature", "humidity"],
              [(t, s, "" if v is None else v, h) for t, s, v, h in _sensors()])


def _check_sensors(attempt: Attempt):
    header, rows = read_csv(attempt.folder / "sensors_filled.csv")
    sensor, temp = column(header, "sensor"), column(header, "temperature")
    if sensor is None or temp is None:
        yield f"sensors_filled.csv has columns {header}"
        return
    if len(rows) != len(_sensors()):
        yield f"sensors_filled.csv has {len(rows)} rows, not {len(_sensors())}"
        return
    means = _sensor_means()
    for row, (_, name, value, _) in zip(rows, _sensors()):
        got = number(row[temp]) if len(row) > temp else None
        want = means[name] if value is None else value
        if not close(got, want, tol=0.01, rel=0):
            yield f"sensors_filled.csv: a {name} temperature is {row[temp] if got is not None else 'empty'}, not {want:.2f}"
            return


FILL_MISSING = Task(
    id="cleaning-fill-missing", category="cleaning",
    sentence="Some temperature values in sensors.csv are missing. Fill each one with the mean "
             "temperature of the same sensor, save the result as sensors_filled.csv, and tell me "
             "how many values you filled.",
    make=_make_sensors, files=_check_sensors,
    answer=(Number(sum(v is None for _, _, v, _ in _sensors()), tol=0, rel=0, name="the count"),),
    right=Reference("python", "import pandas as pd\ndf = pd.read_csv('sensors.csv')\nn = df.temperature.isna().sum()\n"
                              "df['temperature'] = df.temperature.fillna(df.groupby('sensor').temperature.transform('mean'))\n"
                              "df.to_csv('sensors_filled.csv', index=False)\nprint('filled', n)"),
    wrong=Reference("python", "import pandas as pd\ndf = pd.read_csv('sensors.csv')\nn = df.temperature.isna().sum()\n"
                              "df['temperature'] = df.temperature.fillna(df.temperature.mean())\n"
                              "df.to_csv('sensors_filled.csv', index=False)\nprint('filled', n)"),
)


@cache
def _contacts() -> tuple[tuple[str, str, str], ...]:
    rng = Random(2205)
    people = []
    for i in range(40):
        first, last = FIRST[i % len(FIRST)], rng.choice(LAST)
        people.append((f"{first} {last}", f"{first.lower()}.{last.lower()}{i}@example.com",
                       f"+49 30 {rng.randint(1000000, 9999999)}"))
    people += [(people[3][0], "other.address@example.com", people[3][2]),  # same name, not a duplicate
               (people[7][0], people[7][1], "+49 30 5550000")]
    rows = people + [rng.choice(people[:40]) for _ in range(9)]
    rng.shuffle(rows)
    return tuple(rows)


def _check_contacts(attempt: Attempt):
    header, rows = read_csv(attempt.folder / "contacts_unique.csv")
    places = [column(header, name) for name in ("name", "email", "phone")]
    if None in places:
        yield f"contacts_unique.csv's columns are {header}, not name, email, phone"
        return
    unique = set(_contacts())
    got = [tuple(row[i] for i in places) for row in rows if len(row) > max(places)]
    if len(got) != len(unique) or set(got) != unique:
        yield f"contacts_unique.csv has {len(got)} rows; the {len(unique)} distinct rows were expected"


REMOVE_DUPLICATES = Task(
    id="cleaning-duplicates", category="cleaning",
    sentence="contacts.csv has duplicate rows. Remove the exact duplicates, save the rest to "
             "contacts_unique.csv, and tell me how many rows you removed.",
    make=lambda folder: write_csv(folder / "contacts.csv", ["name", "email", "phone"], _contacts()),
    files=_check_contacts,
    answer=(Number(len(_contacts()) - len(set(_contacts())), tol=0, rel=0, name="rows removed"),),
    right=Reference("python", "import pandas as pd\ndf = pd.read_csv('contacts.csv', dtype=str)\nu = df.drop_duplicates()\n"
                              "u.to_csv('contacts_unique.csv', index=False)\nprint('removed', len(df) - len(u))"),
    wrong=Reference("python", "import pandas as pd\ndf = pd.read_csv('contacts.csv', dtype=str)\nu = df.drop_duplicates('name')\n"
                              "u.to_csv('contacts_unique.csv', index=False)\nprint('removed', len(df) - len(u))"),
)


@cache
def _prices() -> tuple[tuple[str, str, str, float | None], ...]:
    rng = Random(2206)
    rows = []
    for i in range(30):
        value = round(rng.uniform(5, 1500), 2)
        style = rng.randrange(6)
        text = {0: f"${value:,.2f}", 1: f"{value}", 2: f" {value:.2f} ", 3: "n/a", 4: "",
                5: f"{value:,.2f}"}[style]
        rows.append((f"P{100 + i}", f"Item {i}", text, None if style in (3, 4) else value))
    return tuple(rows)


def _check_prices(attempt: Attempt):
    header, rows = read_csv(attempt.folder / "products_clean.csv")
    price = column(header, "price")
    if price is None or len(rows) != len(_prices()):
        yield f"products_clean.csv has columns {header} and {len(rows)} rows"
        return
    for row, (sku, _, text, value) in zip(rows, _prices()):
        cell = row[price] if len(row) > price else ""
        got = None if cell.lower() in ("", "nan", "none", "null") else _plain(cell)
        if isinstance(got, str) or (value is None) != (got is None) or (
                value is not None and not close(got, value, 0.005, 0)):
            yield f"products_clean.csv: {sku}'s price is {cell!r}, not {'empty' if value is None else value}"
            return


def _plain(cell: str) -> float | str:
    try:
        return float(cell)
    except ValueError:
        return cell


_KNOWN = [v for *_, v in _prices() if v is not None]

CLEAN_TYPES = Task(
    id="cleaning-bad-types", category="cleaning",
    sentence="The price column of products.csv mixes text like \"$1,299.00\", \"n/a\" and blanks. "
             "Make it numeric (leave unknown prices empty), save the table as products_clean.csv, "
             "and tell me the average of the known prices.",
    make=lambda folder: write_csv(folder / "products.csv", ["sku", "name", "price"],
                                  [r[:3] for r in _prices()]),
    files=_check_prices,
    answer=(Number(statistics.mean(_KNOWN), tol=0.01, rel=0, name="the average"),),
    right=Reference("python", "import pandas as pd\ndf = pd.read_csv('products.csv', dtype=str)\n"
                              "df['price'] = pd.to_numeric(df.price.str.replace(r'[$,\\s]', '', regex=True), errors='coerce')\n"
                              "df.to_csv('products_clean.csv', index=False)\nprint(f'average {df.price.mean():.2f}')"),
    wrong=Reference("python", "import pandas as pd\ndf = pd.read_csv('products.csv', dtype=str)\n"
                              "df['price'] = pd.to_numeric(df.price.str.replace(r'[$,\\s]', '', regex=True), errors='coerce').fillna(0)\n"
                              "df.to_csv('products_clean.csv', index=False)\nprint(f'average {df.price.mean():.2f}')"),
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

TASKS = (MEAN_MEDIAN, TOP_PRODUCT, COUNTRY_COUNTS, FILL_MISSING, REMOVE_DUPLICATES, CLEAN_TYPES,
         PIVOT_UNITS, PIVOT_MEANS)
