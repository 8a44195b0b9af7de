"""A small DABench-shaped folder written for the tests (the benchmark's own data stays out of
the repository): two tables, three questions of the three levels, their labels."""

from __future__ import annotations

import json
from pathlib import Path

QUESTIONS = [
    {"id": 1, "question": "What is the mean of the price column?", "concepts": ["Summary"],
     "constraints": "Use all rows. Round to two decimal places.",
     "format": "@mean_price[value] where value is a number rounded to two decimal places.",
     "file_name": "shop.csv", "level": "easy"},
    {"id": 2, "question": "How many rows have a quantity above 2, and what is their total price?",
     "concepts": ["Filtering"], "constraints": "",
     "format": "@count[n]\n@total[t] where t is rounded to one decimal place.",
     "file_name": "shop.csv", "level": "medium"},
    {"id": 7, "question": "Which city has the highest temperature?", "concepts": ["Ranking"],
     "constraints": "Compare the temp column.", "format": "@city[name]",
     "file_name": "city temps.csv", "level": "hard"},
]
LABELS = [
    {"id": 1, "common_answers": [["mean_price", "4.50"]]},
    {"id": 2, "common_answers": [["count", "2"], ["total", "11.5"]]},
    {"id": 7, "common_answers": [["city", "Lima"]]},
]
TABLES = {
    "shop.csv": "item,price,quantity\napple,1.5,3\npear,2.0,1\nfig,10.0,5\nplum,4.5,2\n",
    "city temps.csv": "city,temp\nOslo,4\nLima,22\nQuito,15\n",
}
# What each question's right solution prints, and its right final answer.
RIGHT = {
    "1": ("import pandas as pd\nprint(round(pd.read_csv('shop.csv')['price'].mean(), 2))",
          "@mean_price[4.5]"),
    "2": ("import pandas as pd\nd = pd.read_csv('shop.csv')\nd = d[d.quantity > 2]\n"
          "print(len(d), round(d.price.sum(), 1))", "@count[2]\n@total[11.5]"),
    "7": ("import pandas as pd\nd = pd.read_csv('city temps.csv')\n"
          "print(d.loc[d.temp.idxmax(), 'city'])", "@city[Lima]"),
}


def write_data(folder: Path, questions=QUESTIONS, labels=LABELS, tables=TABLES) -> Path:
    """The folder in DABench's layout; returns it."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "da-dev-questions.jsonl").write_text(
        "".join(json.dumps(q) + "\n" for q in questions))
    (folder / "da-dev-labels.jsonl").write_text("".join(json.dumps(x) + "\n" for x in labels))
    (folder / "da-dev-tables").mkdir(exist_ok=True)
    for name, text in tables.items():
        (folder / "da-dev-tables" / name).write_text(text)
    return folder
