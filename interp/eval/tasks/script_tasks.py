"""Scripts: Node tasks, and fixing a Python script that crashes."""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from functools import cache
from pathlib import Path
from random import Random

from interp.eval.tasks.datasets import FIRST, write_csv
from interp.eval.tasks.files import column, number, read_csv, run_script
from interp.eval.tasks.spec import Attempt, Number, Reference, Task, Words


# -- Node -------------------------------------------------------------------------------------
@cache
def _amounts() -> tuple[dict, ...]:
    rng = Random(2215)
    return tuple({"id": 9000 + i, "customer": rng.choice(FIRST), "amount": round(rng.uniform(3, 400), 2)}
                 for i in range(30))


NODE_SUM = Task(
    id="node-sum-json", category="node",
    sentence="Use Node.js to read orders.json and tell me the total of the amount field over all "
             "orders.",
    make=lambda folder: (folder / "orders.json").write_text(json.dumps(list(_amounts()), indent=1),
                                                            encoding="utf-8"),
    answer=(Number(round(sum(o["amount"] for o in _amounts()), 2), tol=0.01, rel=0, name="the total"),),
    uses=("node",),
    right=Reference("javascript", "const orders = JSON.parse(require('fs').readFileSync('orders.json', 'utf8'));\n"
                                  "console.log('total', orders.reduce((s, o) => s + o.amount, 0).toFixed(2));"),
    wrong=Reference("python", "import json\nprint('total', round(sum(o['amount'] for o in json.load(open('orders.json'))), 2))"),
)

_WORDS = {"River": 7, "river": 7, "The": 6, "the": 7, "data": 12, "stone": 11, "bridge": 5,
          "Stone": 0, "light": 4, "north": 3, "quiet": 3, "field": 2}
_TOP3 = ("river", "the", "data")


def _make_text(folder: Path) -> None:
    words = [w for w, n in _WORDS.items() for _ in range(n)]
    Random(2216).shuffle(words)
    lines = [" ".join(words[i:i + 9]) + "." for i in range(0, len(words), 9)]
    (folder / "text.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _check_wordfreq(attempt: Attempt):
    if not (attempt.folder / "wordfreq.js").is_file():
        yield "wordfreq.js was not written"
        return
    status, output = run_script(attempt.folder, ["node", "wordfreq.js"])
    if status != 0:
        yield f"node wordfreq.js failed ({'timed out' if status is None else f'exit {status}'})"
    elif (why := Words(_TOP3).missing(output)) is not None:
        yield f"node wordfreq.js: {why} in its output"


_WORDFREQ = """const fs = require('fs');
const counts = {};
for (const w of fs.readFileSync('text.txt', 'utf8')%s.match(/[a-z]+/gi)) counts[w] = (counts[w] || 0) + 1;
console.log(Object.entries(counts).sort((a, b) => b[1] - a[1]).slice(0, 3).map(e => e[0]).join(' '));
"""


def _node_writes(script: str) -> str:
    return (f"const fs = require('fs');\nfs.writeFileSync('wordfreq.js', {json.dumps(script)});\n"
            "console.log(require('child_process').execSync('node wordfreq.js').toString());")


NODE_SCRIPT = Task(
    id="node-word-frequency-script", category="node",
    sentence="Write a Node.js script wordfreq.js that prints the three most common words in "
             "text.txt (ignoring case), run it, and tell me the words.",
    make=_make_text, files=_check_wordfreq, answer=(Words(_TOP3),), uses=("node",),
    right=Reference("javascript", _node_writes(_WORDFREQ % ".toLowerCase()")),
    wrong=Reference("javascript", _node_writes(_WORDFREQ % "")),
)


# -- fixing a crashing script -----------------------------------------------------------------
_REPORT = '''import csv

total = 0.0
count = 0
with open("orders.csv") as handle:
    for row in csv.DictReader(handle):
        total += float(row["amount"])
        count += 1
print(f"Average order value: {total / count:.2f}")
'''


@cache
def _report_rows() -> tuple[tuple[int, str], ...]:
    rng = Random(2217)
    return tuple((4000 + i, rng.choice(["N/A", "", f"{rng.uniform(10, 250):.2f}"]) if i % 7 == 3
                  else f"{rng.uniform(10, 250):.2f}") for i in range(45))


def _report_average() -> float:
    values = [float(a) for _, a in _report_rows() if number(a) is not None]
    return sum(values) / len(values)


def _make_report(folder: Path) -> None:
    write_csv(folder / "orders.csv", ["order_id", "amount"], _report_rows())
    (folder / "report.py").write_text(_REPORT, encoding="utf-8")


def _check_report(attempt: Attempt):
    status, output = run_script(attempt.folder, [sys.executable, "report.py"])
    if status != 0:
        yield f"python report.py still fails ({'timed out' if status is None else f'exit {status}'}): {output.strip()[-200:]}"
    elif Number(_report_average(), tol=0.01, rel=0).missing(output) is not None:
        yield f"python report.py prints {output.strip()[-120:]!r}, not the average {_report_average():.2f}"


_RUN = "import subprocess, sys\nprint(subprocess.run([sys.executable, '{script}'], capture_output=True, text=True).stdout)"

FIX_REPORT = Task(
    id="fixing-report-crash", category="fixing",
    sentence="report.py crashes on orders.csv. Fix it so that it skips the rows without a valid "
             "amount, run it, and tell me the average it prints.",
    make=_make_report, files=_check_report,
    answer=(Number(_report_average(), tol=0.01, rel=0, name="the average"),),
    right=Reference("python", "src = open('report.py').read().replace('        total += float(row[\"amount\"])\\n',"
                              " '        try:\\n            total += float(row[\"amount\"])\\n        except ValueError:\\n            continue\\n')\n"
                              "with open('report.py', 'w') as f:\n    f.write(src)\n" + _RUN.format(script="report.py")),
    wrong=Reference("python", "src = open('report.py').read().replace('float(row[\"amount\"])', 'float(row[\"amount\"] or 0) if row[\"amount\"] != \"N/A\" else 0.0')\n"
                              "with open('report.py', 'w') as f:\n    f.write(src)\n" + _RUN.format(script="report.py")),
)

_SUMMARY = '''import csv
from collections import defaultdict

totals = defaultdict(int)
with open("stock.csv") as handle:
    for row in csv.DictReader(handle):
        totals[row["warehouse"]] += int(row["qty"])
with open("totals.csv", "w", newline="") as handle:
    writer = csv.writer(handle)
    writer.writerow(["warehouse", "total"])
    for name, total in sorted(totals.items()):
        writer.writerow([name, total])
print("grand total:", sum(totals.values()))
'''


@cache
def _stock() -> tuple[tuple[str, str, int], ...]:
    rng = Random(2218)
    return tuple((f"item-{i}", rng.choice(["Leeds", "Hamburg", "Lille"]), rng.randint(0, 90))
                 for i in range(36))


def _stock_totals() -> dict[str, int]:
    totals: dict[str, int] = defaultdict(int)
    for _, where, qty in _stock():
        totals[where] += qty
    return dict(totals)


def _check_summary(attempt: Attempt):
    status, output = run_script(attempt.folder, [sys.executable, "summary.py"])
    if status != 0:
        yield f"python summary.py still fails ({'timed out' if status is None else f'exit {status}'}): {output.strip()[-200:]}"
        return
    header, rows = read_csv(attempt.folder / "totals.csv")
    where, total = column(header, "warehouse"), column(header, "total")
    got = {r[where]: number(r[total]) for r in rows} if None not in (where, total) else {}
    if got != {k: float(v) for k, v in _stock_totals().items()}:
        yield f"totals.csv holds {got}, not the totals per warehouse"


FIX_SUMMARY = Task(
    id="fixing-summary-keyerror", category="fixing",
    sentence="summary.py stops with a KeyError. Fix it and run it (it writes totals.csv with the "
             "total quantity per warehouse), then tell me the grand total.",
    make=lambda folder: (write_csv(folder / "stock.csv", ["item", "warehouse", "quantity"], _stock()),
                         (folder / "summary.py").write_text(_SUMMARY, encoding="utf-8")),
    files=_check_summary,
    answer=(Number(sum(_stock_totals().values()), tol=0, rel=0, name="the grand total"),),
    right=Reference("python", "src = open('summary.py').read().replace('row[\"qty\"]', 'row[\"quantity\"]')\n"
                              "with open('summary.py', 'w') as f:\n    f.write(src)\n" + _RUN.format(script="summary.py")),
    wrong=Reference("python", "src = open('summary.py').read().replace('row[\"qty\"]', 'row.get(\"qty\", 0)')\n"
                              "with open('summary.py', 'w') as f:\n    f.write(src)\n" + _RUN.format(script="summary.py")),
)


TASKS = (NODE_SUM, NODE_SCRIPT, FIX_REPORT, FIX_SUMMARY)
