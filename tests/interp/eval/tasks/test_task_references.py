"""Every task's check passes its reference solution and fails its plausible wrong one.

The references run in the real runners (python3, bash, node) in a fresh folder per task, so the
check reads real files and the figure summaries the real Python driver made."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from helpers import hang_guard
from languages.records import Display, Output, Result
from languages.node import NodeRunner
from languages.protocol import RunnerConfig
from languages.python import PythonRunner
from languages.shell import ShellRunner

from interp.eval.tasks.catalog import TASKS
from interp.eval.tasks.spec import Attempt, Block, Reference, score

pytest.importorskip("openpyxl")  # the xlsx references write workbooks with pandas


@pytest.fixture(scope="module")
def runners(tmp_path_factory):
    """One runner per language for the module; each reference moves into its own folder."""
    base = tmp_path_factory.mktemp("references")
    made = {"python": PythonRunner(RunnerConfig(python=sys.executable, cwd=str(base), grace=2.0)),
            "shell": ShellRunner(RunnerConfig(cwd=str(base), grace=2.0)),
            "javascript": NodeRunner(RunnerConfig(cwd=str(base), grace=2.0))}
    yield made
    for runner in made.values():
        runner.stop()


_MOVE = {"python": "import os; os.chdir({path})\n", "shell": "cd {path}\n",
         "javascript": "process.chdir({path});\n"}
_QUOTE = {"python": repr, "shell": shlex.quote, "javascript": json.dumps}


def attempt_of(task, reference, runners, folder: Path) -> Attempt:
    """Run `reference` in a fresh folder holding the task's inputs; its output is the answer."""
    folder.mkdir()
    task.make(folder)
    runner = runners[reference.language]
    code = _MOVE[reference.language].format(path=_QUOTE[reference.language](str(folder)))
    with hang_guard(120):
        events = list(runner.run(code + reference.code))
    result = events[-1]
    assert isinstance(result, Result)
    output = "".join(e.text for e in events if isinstance(e, Output))
    plots = {d.path: d.plot for d in events if isinstance(d, Display) and d.plot is not None}
    return Attempt(folder=folder, answer=output, shown=output, plots=plots,
                   blocks=(Block(reference.language, reference.code),))


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
def test_the_reference_is_right_and_the_wrong_variant_is_not(task, runners, tmp_path):
    right = score(task, attempt_of(task, task.right, runners, tmp_path / "right"))
    assert right.right and right.answered, right
    wrong = score(task, attempt_of(task, task.wrong, runners, tmp_path / "wrong"))
    assert not wrong.right and not wrong.answered, wrong


# Other right solutions, written the way a model often writes them (pandas' defaults, other
# plotting calls): the checks accept them too.
ALSO_RIGHT = {
    "stats-customers-per-country": "import pandas as pd\nc = pd.read_csv('customers.csv')['country'].value_counts()\n"
                                   "c.to_csv('country_counts.csv')\nprint(c.idxmax())",
    "cleaning-duplicates": "import pandas as pd\ndf = pd.read_csv('contacts.csv')\nd = df.drop_duplicates()\n"
                           "d.to_csv('contacts_unique.csv')\nprint(len(df) - len(d), 'duplicate rows removed')",
    "pivot-units-region-quarter": "import pandas as pd\ndf = pd.read_csv('sales.csv')\n"
                                  "df['quarter'] = pd.to_datetime(df['date']).dt.quarter\n"
                                  "pd.pivot_table(df, index='region', columns='quarter', values='units', aggfunc='sum', margins=True).to_csv('pivot.csv')\n"
                                  "print('pivot.csv written')",
    "charts-revenue-by-region": "import pandas as pd\nimport matplotlib.pyplot as plt\ndf = pd.read_csv('sales.csv')\n"
                                "t = (df['units'] * df['price']).groupby(df['region']).sum()\nfig, ax = plt.subplots()\n"
                                "ax.barh(t.index, t.values)\nfig.savefig('revenue.png')\nfor r, v in t.items(): print(r, round(v, 2))",
    "charts-temperature-line": "import pandas as pd\nimport matplotlib.pyplot as plt\n"
                               "ax = pd.read_csv('weather.csv', parse_dates=['date'], index_col='date').plot(title='Daily Temperature')\n"
                               "ax.get_figure().savefig('temperature.png')\nprint('done')",
    "charts-age-histogram": "import pandas as pd\nimport numpy as np\nimport matplotlib.pyplot as plt\n"
                            "counts, edges = np.histogram(pd.read_csv('customers.csv')['age'], bins=10)\n"
                            "plt.bar(edges[:-1], counts, width=np.diff(edges), align='edge')\nplt.savefig('ages.png')\nprint('done')",
    "charts-market-share-pie": "import pandas as pd\nimport matplotlib.pyplot as plt\n"
                               "pd.read_csv('market.csv').set_index('company')['revenue'].plot.pie(autopct='%.0f%%')\n"
                               "plt.savefig('share.png')\nprint('done')",
    "matrices-determinant-inverse": "import numpy as np, pandas as pd\nm = pd.read_csv('matrix.csv', header=None).values\n"
                                    "pd.DataFrame(np.linalg.inv(m)).to_csv('inverse.csv')\nprint('The determinant is', np.linalg.det(m))",
    "matrices-product": "import pandas as pd\na = pd.read_csv('a.csv', header=None)\nb = pd.read_csv('b.csv', header=None)\n"
                        "p = a.dot(b)\np.to_csv('product.csv', index=False)\nprint('sum of entries:', p.values.sum())",
    "conversion-json-to-csv": "import json, csv\nusers = json.load(open('users.json'))\nwith open('users.csv', 'w', newline='') as f:\n"
                              "    w = csv.writer(f)\n    w.writerow(['id', 'name', 'email', 'city'])\n"
                              "    w.writerows([u['id'], u['name'], u['email'], u['address']['city']] for u in users)\nprint(len(users))",
    "conversion-csv-to-xlsx": "import pandas as pd\npd.read_csv('orders.csv').to_excel('orders.xlsx', sheet_name='Orders')\nprint('ok')",
}


@pytest.mark.parametrize("task_id", sorted(ALSO_RIGHT))
def test_other_common_right_solutions_pass(task_id, runners, tmp_path):
    task = next(t for t in TASKS if t.id == task_id)
    result = score(task, attempt_of(task, Reference("python", ALSO_RIGHT[task_id]), runners,
                                    tmp_path / "other"))
    assert result.right and result.answered, result
