"""Converting between JSON, CSV, XLSX and XML."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from random import Random
from xml.sax.saxutils import escape

from interp.eval.tasks.datasets import FIRST, LAST, write_csv
from interp.eval.tasks.files import close, column, number, read_csv, read_json, read_xlsx, write_xlsx
from interp.eval.tasks.spec import Attempt, Number, Reference, Task

_CITIES = ("Berlin", "Lyon", "Porto", "Turin", "Gdansk", "Utrecht", "Graz")


@cache
def _users() -> tuple[dict, ...]:
    rng = Random(2210)
    users = []
    for i in range(25):
        first, last = rng.choice(FIRST), rng.choice(LAST)
        users.append({"id": 501 + i, "name": f"{first} {last}",
                      "email": f"{first.lower()}.{last.lower()}@example.org",
                      "address": {"street": f"{rng.randint(1, 99)} Main St",
                                  "city": rng.choice(_CITIES), "zip": f"{rng.randint(10000, 99999)}"},
                      "tags": rng.sample(["new", "vip", "trial", "churned"], rng.randint(0, 2))})
    return tuple(users)


def _check_users(attempt: Attempt):
    header, rows = read_csv(attempt.folder / "users.csv")
    if [h.strip().lower() for h in header] != ["id", "name", "email", "city"]:
        yield f"users.csv's columns are {header}, not id, name, email, city"
        return
    want = [[str(u["id"]), u["name"], u["email"], u["address"]["city"]] for u in _users()]
    got = [[str(int(n)) if (n := number(row[0])) is not None else row[0], *row[1:4]] for row in rows]
    if got != want:
        yield f"users.csv has {len(rows)} rows that are not the {len(want)} users"


JSON_TO_CSV = Task(
    id="conversion-json-to-csv", category="conversion",
    sentence="Convert users.json to users.csv with the columns id, name, email and city (the city "
             "is inside address).",
    make=lambda folder: (folder / "users.json").write_text(json.dumps(list(_users()), indent=2),
                                                           encoding="utf-8"),
    files=_check_users,
    right=Reference("python", "import json, pandas as pd\ndf = pd.json_normalize(json.load(open('users.json')))\n"
                              "df = df.rename(columns={'address.city': 'city'})[['id', 'name', 'email', 'city']]\n"
                              "df.to_csv('users.csv', index=False)\nprint(len(df), 'rows')"),
    wrong=Reference("python", "import json, pandas as pd\ndf = pd.json_normalize(json.load(open('users.json')))\n"
                              "df[['id', 'name', 'email', 'address.city']].to_csv('users.csv', index=False)\nprint(len(df), 'rows')"),
)


@cache
def _inventory() -> tuple[tuple[str, str, int, float], ...]:
    rng = Random(2211)
    items = ("bolt", "nut", "washer", "screw", "hinge", "bracket", "spring", "clamp")
    return tuple((f"SKU-{300 + i}", f"{rng.choice(items)} {rng.choice('ABCDE')}{i}",
                  rng.randint(0, 500), round(rng.uniform(0.1, 40), 2)) for i in range(20))


def _check_inventory(attempt: Attempt):
    data = read_json(attempt.folder / "inventory.json")
    if not isinstance(data, list) or len(data) != len(_inventory()):
        yield f"inventory.json is not a list of {len(_inventory())} objects"
        return
    for item, (sku, name, quantity, price) in zip(data, _inventory()):
        if not isinstance(item, dict) or item.get("sku") != sku or item.get("name") != name:
            yield f"inventory.json: {str(item)[:80]} is not the row of {sku}"
            return
        if not all(isinstance(item.get(k), int | float) and not isinstance(item.get(k), bool)
                   for k in ("quantity", "price")):
            yield f"inventory.json: {sku}'s quantity and price are not numbers"
            return
        if item["quantity"] != quantity or not close(item["price"], price, 0.001, 0):
            yield f"inventory.json: {sku} has quantity {item['quantity']}, price {item['price']}"
            return


CSV_TO_JSON = Task(
    id="conversion-csv-to-json", category="conversion",
    sentence="Turn inventory.csv into inventory.json: a list of objects, one per row, with the "
             "quantity and the price as numbers.",
    make=lambda folder: write_csv(folder / "inventory.csv", ["sku", "name", "quantity", "price"],
                                  _inventory()),
    files=_check_inventory,
    right=Reference("python", "import pandas as pd\npd.read_csv('inventory.csv').to_json('inventory.json', orient='records', indent=1)\n"
                              "print('written')"),
    wrong=Reference("python", "import csv, json\nwith open('inventory.json', 'w') as f:\n    json.dump(list(csv.DictReader(open('inventory.csv'))), f)\n"
                              "print('written')"),
)


@cache
def _orders() -> tuple[tuple[int, str, float, str], ...]:
    rng = Random(2212)
    return tuple((7001 + i, f"{rng.choice(FIRST)} {rng.choice(LAST)}", round(rng.uniform(5, 900), 2),
                  f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}") for i in range(40))


_ORDER_COLUMNS = ["order_id", "customer", "amount", "date"]


def _check_orders_xlsx(attempt: Attempt):
    sheets = read_xlsx(attempt.folder / "orders.xlsx")
    if list(sheets) != ["Orders"]:
        yield f"orders.xlsx has the sheets {list(sheets)}, not one named Orders"
        return
    rows = sheets["Orders"]
    header = [str(h) for h in rows[0]] if rows else []
    amount, customer = column(header, "amount"), column(header, "customer")
    if amount is None or customer is None or len(rows) - 1 != len(_orders()):
        yield f"orders.xlsx has {len(rows) - 1} data rows under {header}, not the {len(_orders())} orders"
        return
    for row, (_, name, value, _) in zip(rows[1:], _orders()):
        if row[customer] != name or not close(number(row[amount]), value, 0.001, 0):
            yield f"orders.xlsx: the row {row} is not {name}'s order"
            return


CSV_TO_XLSX = Task(
    id="conversion-csv-to-xlsx", category="conversion",
    sentence="Save orders.csv as an Excel workbook orders.xlsx with one sheet named Orders.",
    make=lambda folder: write_csv(folder / "orders.csv", _ORDER_COLUMNS, _orders()),
    files=_check_orders_xlsx,
    right=Reference("python", "import pandas as pd\npd.read_csv('orders.csv').to_excel('orders.xlsx', sheet_name='Orders', index=False)\n"
                              "print('saved')"),
    wrong=Reference("python", "import pandas as pd\npd.read_csv('orders.csv').to_excel('orders.xlsx', index=False)\n"
                              "print('saved')"),
)


@cache
def _budget() -> dict[str, list[tuple[str, float]]]:
    rng = Random(2213)
    categories = ("Rent", "Salaries", "Travel", "Software", "Hardware", "Marketing", "Training")
    return {year: [(c, round(rng.uniform(1000, 60000), 2)) for c in categories]
            for year in ("2023", "2024")}


def _make_budget(folder: Path) -> None:
    write_xlsx(folder / "budget.xlsx", {year: [["Category", "Amount"], *map(list, rows)]
                                        for year, rows in _budget().items()})


def _check_budget(attempt: Attempt):
    header, rows = read_csv(attempt.folder / "budget_2024.csv")
    amount, category = column(header, "amount"), column(header, "category")
    want = _budget()["2024"]
    if amount is None or category is None:
        yield f"budget_2024.csv's columns are {header}"
    elif [(r[category], number(r[amount])) for r in rows] != want:
        yield "budget_2024.csv does not hold the 2024 sheet"


XLSX_TO_CSV = Task(
    id="conversion-xlsx-to-csv", category="conversion",
    sentence="budget.xlsx has a sheet per year. Export the 2024 sheet to budget_2024.csv and tell "
             "me the total Amount for 2024.",
    make=_make_budget, files=_check_budget,
    answer=(Number(round(sum(a for _, a in _budget()["2024"]), 2), tol=0.01, rel=0, name="the total"),),
    right=Reference("python", "import pandas as pd\ndf = pd.read_excel('budget.xlsx', sheet_name='2024')\n"
                              "df.to_csv('budget_2024.csv', index=False)\nprint(f'total {df.Amount.sum():.2f}')"),
    wrong=Reference("python", "import pandas as pd\ndf = pd.read_excel('budget.xlsx')\n"
                              "df.to_csv('budget_2024.csv', index=False)\nprint(f'total {df.Amount.sum():.2f}')"),
)

_BOOKS = (("Pride & Prejudice", "Jane Austen", 1813, 9.99), ("Dune", "Frank Herbert", 1965, 14.5),
          ("The Road", "Cormac McCarthy", 2006, 12.0), ("Neuromancer", "William Gibson", 1984, 11.25),
          ("White Teeth", "Zadie Smith", 2000, 13.4), ("Beloved", "Toni Morrison", 1987, 10.0),
          ("Atonement", "Ian McEwan", 2001, 12.75), ("Ulysses", "James Joyce", 1922, 15.0),
          ("Middlesex", "Jeffrey Eugenides", 2002, 13.99), ("Possession", "A. S. Byatt", 1990, 11.5),
          ("Gilead", "Marilynne Robinson", 2004, 12.2), ("Emma", "Jane Austen", 1815, 8.75),
          ("Wolf Hall", "Hilary Mantel", 2009, 16.0), ("Disgrace", "J. M. Coetzee", 1999, 10.5),
          ("Blindness", "Jose Saramago", 1995, 11.0), ("Hunger, a Memoir", "Roxane Gay", 2017, 14.0),
          ("Austerlitz", "W. G. Sebald", 2001, 13.0))


def _make_catalog(folder: Path) -> None:
    books = "".join(f'  <book id="bk{100 + i}">\n    <title>{escape(t)}</title>\n    <author>'
                    f"{escape(a)}</author>\n    <year>{y}</year>\n    <price>{p}</price>\n  </book>\n"
                    for i, (t, a, y, p) in enumerate(_BOOKS))
    (folder / "catalog.xml").write_text(f'<?xml version="1.0" encoding="UTF-8"?>\n<catalog>\n{books}'
                                        "</catalog>\n", encoding="utf-8")


def _check_books(attempt: Attempt):
    header, rows = read_csv(attempt.folder / "books.csv")
    places = [column(header, name) for name in ("title", "author", "year", "price")]
    if None in places:
        yield f"books.csv's columns are {header}, not title, author, year, price"
        return
    got = sorted((r[places[0]], r[places[1]], number(r[places[2]]), number(r[places[3]]))
                 for r in rows if len(r) > max(places))
    if got != sorted((t, a, float(y), p) for t, a, y, p in _BOOKS):
        yield f"books.csv's {len(rows)} rows are not the {len(_BOOKS)} books of the catalog"


XML_TO_CSV = Task(
    id="conversion-xml-to-csv", category="conversion",
    sentence="Extract every book in catalog.xml into books.csv with the columns title, author, "
             "year and price. How many of the books were published before 2000?",
    make=_make_catalog, files=_check_books,
    answer=(Number(sum(y < 2000 for _, _, y, _ in _BOOKS), tol=0, rel=0, name="the count"),),
    right=Reference("python", "import csv, xml.etree.ElementTree as ET\n"
                              "books = [[b.findtext(k) for k in ('title', 'author', 'year', 'price')] for b in ET.parse('catalog.xml').getroot()]\n"
                              "with open('books.csv', 'w', newline='') as f:\n    w = csv.writer(f)\n    w.writerow(['title', 'author', 'year', 'price'])\n"
                              "    w.writerows(books)\nprint('before 2000:', sum(int(b[2]) < 2000 for b in books))"),
    wrong=Reference("python", "import csv, xml.etree.ElementTree as ET\n"
                              "books = [[b.findtext(k) for k in ('title', 'author', 'year', 'price')] for b in ET.parse('catalog.xml').getroot()]\n"
                              "with open('books.csv', 'w', newline='') as f:\n    w = csv.writer(f)\n    w.writerow(['title', 'author', 'year', 'price'])\n"
                              "    w.writerows(books)\nprint('before 2000:', sum(int(b[2]) <= 2000 for b in books))"),
)

TASKS = (JSON_TO_CSV, CSV_TO_JSON, CSV_TO_XLSX, XLSX_TO_CSV, XML_TO_CSV)
