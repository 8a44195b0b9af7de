"""Input data shared by several tasks, generated from fixed seeds (the same on every run)."""

from __future__ import annotations

import csv
from dataclasses import astuple, dataclass, fields
from datetime import date, timedelta
from functools import cache
from pathlib import Path
from random import Random

REGIONS = ("East", "West", "North", "South")
PRODUCTS = {"Widget": 4.5, "Gadget": 12.0, "Gizmo": 7.25, "Doohickey": 19.99}
COUNTRIES = ("Germany", "France", "Spain", "Italy", "Poland", "Netherlands")
FIRST = ("Anna", "Ben", "Carla", "David", "Eva", "Felix", "Greta", "Hugo", "Ines", "Jonas",
         "Klara", "Luca", "Mia", "Noah", "Olga", "Paul", "Rosa", "Sven", "Tina", "Umar")
LAST = ("Berg", "Costa", "Dubois", "Fischer", "Garcia", "Horvat", "Jansen", "Kowalski",
        "Lund", "Moreau", "Novak", "Rossi", "Schmidt", "Weber", "Visser")


@dataclass(frozen=True)
class Sale:
    date: str
    region: str
    product: str
    units: int
    price: float

    @property
    def revenue(self) -> float:
        return self.units * self.price

    @property
    def quarter(self) -> int:
        return (int(self.date[5:7]) - 1) // 3 + 1


@dataclass(frozen=True)
class Customer:
    id: int
    name: str
    country: str
    age: int


@cache
def sales() -> tuple[Sale, ...]:
    """120 sales of 2024: date, region, product, units, price."""
    rng = Random(2201)
    rows = []
    for _ in range(120):
        day = date(2024, 1, 1) + timedelta(days=rng.randrange(366))
        product = rng.choice(list(PRODUCTS))
        rows.append(Sale(day.isoformat(), rng.choice(REGIONS), product, rng.randint(1, 25),
                         round(PRODUCTS[product] * rng.uniform(0.9, 1.1), 2)))
    return tuple(sorted(rows, key=lambda s: s.date))


@cache
def customers() -> tuple[Customer, ...]:
    """150 customers: id, name, country (unevenly spread), age."""
    rng = Random(2202)
    weights = (30, 22, 18, 12, 10, 8)
    return tuple(Customer(1000 + i, f"{rng.choice(FIRST)} {rng.choice(LAST)}",
                          rng.choices(COUNTRIES, weights)[0], rng.randint(18, 79))
                 for i in range(150))


def write_csv(path: Path, header: list[str] | tuple[str, ...], rows) -> None:
    """A CSV file with a header row."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def write_records(path: Path, records) -> None:
    """Dataclass records as a CSV file, one column per field."""
    records = list(records)
    write_csv(path, [f.name for f in fields(records[0])], [astuple(r) for r in records])


def write_sales(folder: Path) -> None:
    """sales.csv: date, region, product, units, price."""
    write_records(folder / "sales.csv", sales())


def write_customers(folder: Path) -> None:
    """customers.csv: id, name, country, age."""
    write_records(folder / "customers.csv", customers())
