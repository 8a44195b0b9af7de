"""Cleaning tables: missing values, duplicate rows, numbers written as text."""

from __future__ import annotations

import statistics
from collections import defaultdict
from functools import cache
from pathlib import Path
from random import Random

from interp.eval.tasks.datasets import FIRST, LAST, write_csv
from interp.eval.tasks.files import close, column, number, read_csv
from interp.eval.tasks.spec import Attempt, Number, Reference, Task


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


TASKS = (FILL_MISSING, REMOVE_DUPLICATES, CLEAN_TYPES)
