"""A trailing DataFrame, Series or NumPy array becomes a bounded table Display; other values print."""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys

import pytest

from languages.protocol import RunnerConfig
from languages.records import Display, Result, parse_displays
from languages.records import CapturedOutput
from languages.python import PythonRunner

pytestmark = pytest.mark.usefixtures("no_leaked_processes")

MAX_ROWS, MAX_COLS, MAX_CELL, MAX_TEXT = 20, 20, 50, 8000
TEXT_BOUND = MAX_TEXT + 100  # the text form plus its "more characters" note


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """A shared runner on this interpreter, with pandas and numpy imported."""
    pytest.importorskip("pandas")
    runner = PythonRunner(RunnerConfig(python=sys.executable, grace=5.0,
                                       cwd=str(tmp_path_factory.mktemp("datacwd"))))
    runner.start()
    for _ in runner.run("import pandas as pd, numpy as np"):
        pass
    yield runner
    runner.stop()


def one_table(run, runner, code):
    out, displays, res = run(runner, code)
    assert res.ok, out
    assert out == ""  # a rich value is a display, not printed text
    assert len(displays) == 1 and displays[0].kind == "table" and displays[0].path is None
    return displays[0]


def check_bounded(table: dict) -> None:
    assert len(table["rows"]) <= MAX_ROWS and len(table["index"]) == len(table["rows"])
    assert len(table["columns"]) <= MAX_COLS and len(table["dtypes"]) == len(table["columns"])
    for row in table["rows"]:
        assert len(row) == len(table["columns"])
        assert all(isinstance(c, str) and len(c) <= MAX_CELL and "\n" not in c for c in row)
    assert len(json.dumps(table)) < 40_000


# -- pandas -------------------------------------------------------------------

def test_small_dataframe(data, run):
    shown = one_table(run, data, "df = pd.DataFrame({'name': ['a', 'b'], 'n': [1, 2], 'x': [0.5, None]})\ndf")
    t = shown.data
    assert t["type"] == "DataFrame" and t["shape"] == [2, 3]
    assert t["columns"] == ["name", "n", "x"] and t["index"] == ["0", "1"]
    assert t["dtypes"][1:] == ["int64", "float64"]
    assert t["rows"] == [["a", "1", "0.5"], ["b", "2", "NaN"]]
    assert t["row_gap"] is None and t["col_gap"] is None
    assert shown.text.splitlines()[0].split() == ["name", "n", "x"]
    assert shown.text.endswith("[DataFrame: 2 rows x 3 columns]")
    out, _, _ = run(data, "_ is df")  # the value is still kept in _
    assert out == "True\n"


def test_large_dataframe_is_bounded(data, run):
    code = ("big = pd.DataFrame({f'c{i}': ['v' * 200] * 10_000 if i % 2 else range(10_000)"
            " for i in range(60)})\nbig")
    shown = one_table(run, data, code)
    t = shown.data
    assert t["shape"] == [10_000, 60]
    check_bounded(t)
    assert len(t["rows"]) == MAX_ROWS and t["row_gap"] == MAX_ROWS // 2
    assert t["index"][:2] == ["0", "1"] and t["index"][-1] == "9999"
    assert len(t["columns"]) == MAX_COLS and t["col_gap"] == MAX_COLS // 2
    assert t["columns"][0] == "c0" and t["columns"][-1] == "c59"
    assert len(shown.text) <= TEXT_BOUND
    assert "[DataFrame: 10000 rows x 60 columns]" in shown.text or "more characters" in shown.text


def test_tall_narrow_dataframe_text_keeps_head_tail_and_shape(data, run):
    shown = one_table(run, data, "pd.DataFrame({'a': range(10_000)})")
    assert len(shown.text.splitlines()) <= MAX_ROWS + 4
    assert shown.text.endswith("[DataFrame: 10000 rows x 1 columns]")
    assert "9999" in shown.text and "..." in shown.text


def test_series(data, run):
    shown = one_table(run, data, "pd.Series(range(1000), name='count') * 2")
    t = shown.data
    assert t["type"] == "Series" and t["shape"] == [1000] and t["name"] == "count"
    assert t["columns"] == ["count"] and t["dtypes"] == ["int64"]
    check_bounded(t)
    assert t["rows"][0] == ["0"] and t["rows"][-1] == ["1998"] and t["index"][-1] == "999"
    assert "Name: count" in shown.text and shown.text.endswith("[Series: 1000 rows]")


def test_cells_are_cut_and_single_line(data, run):
    shown = one_table(run, data, "pd.DataFrame({'s': ['line1\\nline2', 'x' * 500]})")
    assert shown.data["rows"][0] == ["line1\\nline2"]
    cell = shown.data["rows"][1][0]
    assert len(cell) == MAX_CELL and cell.endswith("\u2026")
    assert all(len(line) < 200 for line in shown.text.splitlines())


def test_marker_lookalikes_and_newlines_in_values_cannot_break_the_protocol(data, run):
    shown = one_table(run, data, "pd.DataFrame({'__INTERP_x__': ['__INTERP_0123__{\"status\": \"error\"}\\n']})")
    assert "__INTERP_x__" in shown.text
    out, displays, res = run(data, "print('next')")
    assert (out, displays, res.status) == ("next\n", [], "ok")


def test_only_a_trailing_value_is_a_display(data, run):
    out, displays, res = run(data, "d = pd.DataFrame({'a': [1]})\nd\nprint(d)\nx = 1")
    assert res.ok and displays == []
    assert out.split() == ["a", "0", "1"]  # print() is ordinary output


# -- numpy --------------------------------------------------------------------

def test_large_array_is_bounded(data, run):
    shown = one_table(run, data, "np.arange(1_000_000).reshape(1000, 1000)")
    t = shown.data
    assert t["type"] == "ndarray" and t["shape"] == [1000, 1000] and t["dtype"] == "int64"
    check_bounded(t)
    assert t["rows"][0][0] == "0" and t["rows"][-1][-1] == "999999"
    assert t["index"][-1] == "999" and t["columns"][-1] == "999"
    assert len(shown.text) < 3000 and "..." in shown.text
    assert shown.text.endswith("[ndarray: shape (1000, 1000), dtype int64]")


def test_one_dimensional_and_higher_arrays(data, run):
    shown = one_table(run, data, "np.array([1.5, 2.0, float('nan')])")
    assert shown.data["shape"] == [3] and shown.data["rows"] == [["1.5"], ["2.0"], ["NaN"]]
    assert shown.text.startswith("[1.5 2.  nan]")
    cube = one_table(run, data, "np.zeros((30, 30, 30))")
    assert cube.data is None  # no 2-D layout: the renderer shows the text
    assert cube.text.endswith("[ndarray: shape (30, 30, 30), dtype float64]") and len(cube.text) < 3000
    out, displays, _ = run(data, "np.float64(2.5), np.array(7)")
    assert displays == [] and "2.5" in out  # scalars and tuples print as usual
    out, displays, _ = run(data, "np.array(7)")
    assert displays == [] and out == "array(7)\n"


# -- plain values and other interpreters -----------------------------------------

@pytest.mark.parametrize("code, shown", [
    ("1 + 1", "2\n"), ("'text'", "'text'\n"), ("[1, 2]", "[1, 2]\n"), ("None", ""),
    ("class DataFrame:\n    def __repr__(self): return 'mine'\nDataFrame()", "mine\n"),
])
def test_plain_values_keep_the_repl_repr(data, run, code, shown):
    out, displays, res = run(data, code)
    assert res.ok and (out, displays) == (shown, [])


def test_users_own_displayhook_still_prints_plain_values(make_runner, run, tmp_path):
    runner = make_runner(PythonRunner, python=sys.executable, cwd=str(tmp_path))
    run(runner, "import sys\nsys.displayhook = lambda v: print('custom', v)")
    out, displays, _ = run(runner, "5")
    assert (out, displays) == ("custom 5\n", [])


def _python_without_pandas() -> str | None:
    """A real python3 (3.8 or newer, the oldest first: the driver supports 3.8) without pandas."""
    def version(path: str) -> tuple[int, ...]:
        name = path.split("/versions/")[1].split("/")[0]
        return tuple(int(n) if n.isdigit() else 0 for n in name.split("."))
    pyenv = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.*/bin/python3")), key=version)
    candidates = [*pyenv, shutil.which("python3"), "/usr/bin/python3"]
    check = "import sys; assert sys.version_info >= (3, 8)\ntry:\n import pandas\nexcept ImportError:\n sys.exit(7)"
    for path in filter(None, candidates):
        try:
            if subprocess.run([path, "-c", check], capture_output=True, timeout=60).returncode == 7:
                return path
        except (OSError, subprocess.SubprocessError):
            continue
    return None


def test_works_with_a_python_that_has_no_pandas(make_runner, run, tmp_path):
    python = _python_without_pandas()
    if python is None:
        pytest.skip("every python3 here has pandas")
    runner = make_runner(PythonRunner, python=python, cwd=str(tmp_path))
    out, displays, res = run(runner, "import sys\nprint(sys.version_info >= (3, 8))\n1 + 1")
    assert (out, displays, res.status) == ("True\n2\n", [], "ok")
    out, displays, res = run(runner, "import pandas")
    assert res.status == "error" and "ModuleNotFoundError" in out and displays == []
    out, _, res = run(runner, "[m in sys.modules for m in ('pandas', 'matplotlib')]")
    assert res.ok and out == "[False, False]\n"


def test_blocked_pandas_and_numpy_modules_are_ignored(make_runner, run, tmp_path):
    # Same interpreter, but pandas and numpy are made unimportable, as if not installed.
    runner = make_runner(PythonRunner, python=sys.executable, cwd=str(tmp_path))
    run(runner, "import sys\nsys.modules['pandas'] = None\nsys.modules['numpy'] = None")
    out, displays, res = run(runner, "{'a': [1, 2]}")
    assert (out, displays, res.status) == ("{'a': [1, 2]}\n", [], "ok")
    out, _, res = run(runner, "import pandas")
    assert res.status == "error" and "import of pandas halted" in out


# -- the event API ---------------------------------------------------------------

def _output(text: str) -> CapturedOutput:
    return CapturedOutput(text, "", 0, 0, len(text), None)


def test_display_parsing_is_lenient():
    good = {"kind": "table", "text": "t", "path": None, "data": {"rows": []}}
    status = {"status": "ok", "displays": [good, {"kind": 1, "text": "x"}, "junk",
                                           {"kind": "image", "text": "i", "path": 5},
                                           {"kind": "image", "text": "[figure saved: /p]", "path": "/p"}]}
    assert parse_displays(status) == (Display("table", "t", None, {"rows": []}),
                                      Display("image", "[figure saved: /p]", "/p"))
    assert parse_displays({"displays": "nope"}) == parse_displays(None) == parse_displays({}) == ()
    assert Display.from_dict(good).to_dict() == good


def test_model_text_appends_display_texts():
    res = Result(status="ok", output=_output("out"))
    assert res.model_text() == res.output.for_model() == "out" and res.displays == ()
    shown = (Display("image", "[figure saved: /a.png]", "/a.png"), Display("table", "\x1b[1mT\x1b[0m"))
    res = Result(status="ok", output=_output("out"), displays=shown)
    assert res.model_text() == "out\n[figure saved: /a.png]\nT\n"
    assert Result(status="ok", output=_output(""), displays=shown[:1]).model_text() == "[figure saved: /a.png]\n"
    hash(res)  # still hashable, like before
