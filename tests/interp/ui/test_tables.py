"""Showing block.display (tables, figures) and block.files events in the terminal, safely."""

from __future__ import annotations

import base64
import os
import re
import socket
import sys
import threading
from io import StringIO
from pathlib import Path

import pexpect
import pytest
from helpers import hang_guard, interp_cmd, model_args
from rich.console import Console
from pty_terminal import Term, fenced

from interp.core import events as ev
from png_kit import make_png
from interp.ui import images
from interp.ui.render import Renderer
from interp.ui.tables import data_table

WIDTH = 100
SECRET = "sk-test-123456"
PLANTED = ("\x1b[2J\x1b]0;pwned\x07\x1b]52;c;cm0gLXJm\x07\x1b[8m\x9b2J\x1b_apc\x1b\\"
           "\x1b]8;;http://evil.example\x07click\x1b]8;;\x07\u202eevil\x08\r")
BAD = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
SGR = re.compile(r"\x1b\[[0-9;]*m")
KITTY = re.compile(r"\x1b_G([^;\x1b]*);([A-Za-z0-9+/=]*)\x1b\\")
OSC8 = re.compile(r"\x1b\]8;;([^\x1b\x07]*)\x1b\\(.*?)\x1b\]8;;\x1b\\")




def render(events: list[ev.Event], terminal: bool = True, **kwargs) -> str:
    out = StringIO()
    console = Console(file=out, force_terminal=terminal, width=WIDTH,
                      color_system="standard" if terminal else None)
    renderer = Renderer(console, secrets=[SECRET], **kwargs)
    for item in events:
        renderer.handle(item)
    return out.getvalue()


def display(kind: str, text: str = "", path: str | None = None, data=None) -> ev.Event:
    return ev.event(ev.BLOCK_DISPLAY, index=1, kind=kind, text=text, path=path, data=data)


def frame_data(nrows: int = 10000, planted: str = "") -> dict:
    """A table shaped like the Python driver's for a 10000 x 3 DataFrame cut to 20 rows."""
    kept = list(range(10)) + list(range(nrows - 10, nrows))
    return {"type": "DataFrame", "shape": [nrows, 3], "columns": ["id", "price" + planted, "name"],
            "dtypes": ["int64", "float64", "object" + planted], "index": [str(i) for i in kept],
            "rows": [[str(i), f"{i / 3:.3f}", f"item {i}{planted}"] for i in kept],
            "row_gap": 10, "col_gap": None, "index_names": [None]}


def leftover(raw: str) -> str:
    """raw without the escape sequences interp may write itself (SGR, kitty, OSC 8)."""
    return SGR.sub("", OSC8.sub(r"\2", KITTY.sub("", raw)))


# -- tables --------------------------------------------------------------------------------
@pytest.mark.fast
def test_table_shows_headers_rows_gap_and_caption():
    raw = render([display("table", "plain text form", data=frame_data())], terminal=False)
    lines = raw.splitlines()
    assert all(len(line) <= WIDTH for line in lines)
    assert len(lines) < 35  # 20 rows, a gap row, header, borders, caption
    header = next(line for line in lines if "id" in line)
    assert "price" in header and "name" in header
    assert "int64" in raw and "float64" in raw and "object" in raw
    assert re.search(r"│ 9999\s*│\s+9999 │\s+3333\.000 │ item 9999\s*│", raw)
    assert re.search(r"│ …\s*│\s*… │", raw)  # the left-out rows are marked
    assert lines[-1].strip() == "DataFrame: 10,000 rows × 3 columns (showing 20 × 3)"
    assert "plain text form" not in raw
    assert "\x1b" not in raw


@pytest.mark.fast
def test_wide_table_stays_within_the_console_width():
    columns = [f"column_{i}_" + "w" * 40 for i in range(20)]
    data = {"type": "DataFrame", "shape": [5, 500], "columns": columns, "dtypes": ["object"] * 20,
            "index": list("abcde"), "rows": [["v" * 50] * 20 for _ in range(5)],
            "row_gap": None, "col_gap": 10, "index_names": ["key"]}
    raw = render([display("table", "text", data=data)])
    plain = SGR.sub("", raw)
    assert all(len(line) <= WIDTH for line in plain.splitlines())
    assert len(plain.splitlines()) < 15
    assert "v" * 50 in plain and "column_0_" + "w" * 40 in plain  # whole values, fewer columns
    assert "500 columns (showing 5 × 1; 499 columns left out)" in plain


@pytest.mark.fast
def test_series_and_ndarray_captions():
    series = {"type": "Series", "shape": [3], "columns": ["total"], "dtypes": ["int64"],
              "index": ["a", "b", "c"], "rows": [["1"], ["2"], ["3"]], "row_gap": None,
              "col_gap": None, "name": "total", "index_names": [None]}
    array = {"type": "ndarray", "shape": [2, 2], "columns": ["0", "1"],
              "dtypes": ["float64"] * 2, "index": ["0", "1"],
             "rows": [["1.0", "2.0"], ["3.0", "4.0"]],
             "row_gap": None, "col_gap": None, "dtype": "float64"}
    raw = render([display("table", "s", data=series), display("table", "a", data=array)],
                 terminal=False)
    assert "Series total: 3 rows\n" in raw
    assert "ndarray (float64): 2 rows × 2 columns\n" in raw


@pytest.mark.fast
def test_real_driver_shapes_render():
    pd = pytest.importorskip("pandas")
    np = pytest.importorskip("numpy")
    from languages.python.driver import tables as driver  # the driver's module, imported
    frame = pd.DataFrame({"a": range(10000), "b": [x / 7 for x in range(10000)], "c": "x"})
    shown = [driver.frame_display(pd, frame), driver.series_display(pd, frame["b"]),
             driver.array_display(np, np.arange(600).reshape(30, 20)),
             driver.array_display(np, np.zeros(5))]
    raw = render([display(**d) for d in shown], terminal=False)
    assert "DataFrame: 10,000 rows × 3 columns (showing 20 × 3)" in raw
    assert "Series b: 10,000 rows (showing 20)" in raw
    assert "ndarray (int64): 30 rows × 20 columns (showing 20 × 15; 5 columns left out)" in raw
    assert "ndarray (float64): 5 rows\n" in raw
    assert "[DataFrame:" not in raw  # drawn as tables, not as the model's text


@pytest.fixture
def python_values(tmp_path):
    """value(expr, setup) -> the table display the real Python runner sends for `expr`."""
    pytest.importorskip("pandas")
    from languages import Result, RunnerConfig
    from languages.python import PythonRunner

    runner = PythonRunner(RunnerConfig(cwd=str(tmp_path), python=sys.executable, grace=0.5))

    def value(code: str) -> ev.Event:
        with hang_guard():
            result = [e for e in runner.run(code, timeout=60, block=1)
                      if isinstance(e, Result)][-1]
        assert result.status == "ok", result.output.text
        (shown,) = result.displays
        return display(shown.kind, shown.text, shown.path, shown.data)

    yield value
    runner.stop()


def narrow(events: list[ev.Event], width: int) -> list[str]:
    out = StringIO()
    renderer = Renderer(Console(file=out, width=width, color_system=None), secrets=[SECRET])
    for item in events:
        renderer.handle(item)
    lines = out.getvalue().splitlines()
    assert all(len(line) <= width for line in lines), out.getvalue()
    return lines


def test_a_wide_frame_keeps_its_index_and_whole_values(python_values):
    shown = python_values("import numpy as np, pandas as pd\n"
                          "pd.DataFrame(np.arange(500000).reshape(10000, 50) / 8,\n"
                          "             columns=[f'col{i}' for i in range(50)])")
    lines = narrow([shown], 80)
    header = next(line for line in lines if "col0" in line)
    assert re.search(r"┃\s+┃\s+col0 ┃\s+col1 ┃.*┃\s+col48 ┃\s+col49 ┃$", header)
    assert re.search(r"^│ 9999 │ 62493\.75 │ 62493\.875 │ .* │ … │ .* │ 62499\.875 │$", lines[-3])
    assert re.search(r"^│ 0\s+│\s+0\.0 │\s+0\.125 │ .* │ … │", "\n".join(lines), re.M)
    assert lines[-1].startswith("DataFrame: 10,000 rows × 50 columns (showing 20 × ")
    assert lines[-1].endswith(" columns left out)")
    cells = [c.strip() for line in lines if line.startswith("│") for c in line.split("│")]
    assert cells.count("…") < 30  # only the gap column and the gap row


def test_a_wide_array_keeps_its_row_numbers(python_values):
    lines = narrow([python_values("import numpy as np\nnp.arange(100000).reshape(1000, 100)")],
                   80)
    assert re.search(r"^│ 990 │ 99000 │ 99001 │ .* │ … │ .* │ 99098 │ 99099 │$",
                     "\n".join(lines), re.M)
    assert lines[-1].startswith("ndarray (int64): 1,000 rows × 100 columns (showing 20 × ")


def test_describe_keeps_its_row_labels_at_50_columns(python_values):
    shown = python_values(
        "import pandas as pd\n"
        "df = pd.DataFrame({'amount': [1.5, 2.25, 3.0, 4.75], 'city': list('abca'),\n"
        "                   'when': pd.date_range('2024-01-01', periods=4),\n"
        "                   'count': [10, 20, 30, 40], 'note': ['x', 'y', 'z', 'w']})\n"
        "df.describe(include='all')")
    lines = narrow([shown], 50)
    labels = [line.split("│")[1].strip() for line in lines if line.startswith("│")]
    assert labels[:4] == ["count", "unique", "top", "freq"] and "mean" in labels
    assert "std" in labels and "max" in labels
    assert re.search(r"^│ max\s+│\s+4\.75 │", "\n".join(lines), re.M)  # whole values
    assert "columns left out)" in "\n".join(lines)


@pytest.mark.parametrize("data", [
    None, "not a dict", {}, {"columns": "abc", "rows": []},
    {"columns": ["a", "b"], "rows": [["1"], ["1", "2"]]},  # ragged
    {"columns": ["a"], "rows": [[{"nested": 1}]]},
    {"columns": ["a"], "rows": [["1"]], "shape": ["many"]},
    {"columns": ["a"], "rows": [["1"]], "shape": [-1]},
    {"columns": [], "rows": []},
    {"columns": [["x"]], "rows": [["1"]]},
])
def test_malformed_table_data_falls_back_to_text(data):
    raw = render([display("table", "fallback text\nsecond line", data=data)], terminal=False)
    assert "fallback text\nsecond line" in raw


@pytest.mark.fast
def test_odd_but_usable_data_is_drawn_leniently():
    data = {"columns": ["a", 2, None], "rows": [["x", 1, 2.5]], "index": "nope",
            "dtypes": [1], "row_gap": 99, "col_gap": True, "index_names": "x"}
    raw = render([display("table", "fallback", data=data)], terminal=False)
    assert "fallback" not in raw and "2.5" in raw and "1 row × 3 columns" in raw


@pytest.mark.fast
def test_unknown_kind_or_missing_text_never_crashes():
    raw = render([display("audio", "[audio saved]"), display("table"),
                  ev.event(ev.BLOCK_DISPLAY, index=1),
                  display("image", "[figure saved]", path=None),
                  display("table", 42, data=[1, 2])], terminal=False)
    assert "[audio saved]" in raw and "[figure saved]" in raw


@pytest.mark.fast
def test_data_table_is_bounded_even_when_the_driver_is_not():
    data = {"columns": [str(i) for i in range(200)], "rows": [["x" * 1000] * 200] * 500}
    group = data_table(data)
    table = group.renderables[0]
    assert len(table.columns) == 31 and table.row_count == 51  # and a `…` column and row
    assert [c.header.plain for c in table.columns][14:17] == ["14", "…", "185"]
    assert ("500 rows × 200 columns (showing 50 × 30; 170 columns left out)"
            in str(group.renderables[1]))


@pytest.mark.fast
@pytest.mark.parametrize("terminal", [True, False])
def test_planted_sequences_in_a_table_are_neutralised(terminal):
    data = frame_data(planted=PLANTED)
    data["index"][0] = PLANTED
    data["index_names"] = [PLANTED]
    data["type"] = "Data" + PLANTED
    raw = render([display("table", "t", data=data),
                  display("table", "text " + PLANTED + SECRET, data=None)], terminal=terminal)
    assert not BAD.search(SGR.sub("", raw))
    assert "pwned" not in raw and "cm0gLXJm" not in raw and "evil.example" not in raw
    assert "\x1b]" not in raw and "\x1b_" not in raw
    assert "item 0" in raw and "[REDACTED]" in raw and SECRET not in raw


@pytest.mark.fast
def test_secrets_in_cells_are_redacted():
    data = frame_data()
    data["rows"][0][2] = f"key={SECRET}"
    raw = render([display("table", "t", data=data)], terminal=False)
    assert SECRET not in raw and "key=[REDACTED]" in raw


# -- images --------------------------------------------------------------------------------
@pytest.fixture
def figure(tmp_path) -> tuple[Path, bytes]:
    png = make_png(40, 30)
    path = tmp_path / "my charts" / "résumé #1.png"
    path.parent.mkdir()
    path.write_bytes(png)
    return path, png


@pytest.mark.fast
def test_kitty_shows_the_real_png_inline_and_the_path(figure, monkeypatch):
    path, png = figure
    monkeypatch.setenv("INTERP_IMAGES", "kitty")
    raw = render([display("image", f"[figure saved: {path}]", path=str(path),
                          data={"format": "png"})])
    chunks = KITTY.findall(raw)
    assert chunks and chunks[0][0].startswith("f=100,a=T,q=2,c=4,")
    assert base64.b64decode("".join(payload for _, payload in chunks)) == png
    links = OSC8.findall(raw)
    assert links == [(images.file_url(path), str(path))]
    assert raw.index("\x1b_G") < raw.index("figure saved")
    assert not BAD.search(leftover(raw))


@pytest.mark.fast
def test_without_inline_images_the_path_is_a_percent_encoded_file_link(figure, monkeypatch):
    path, _ = figure
    monkeypatch.setenv("INTERP_IMAGES", "none")
    raw = render([display("image", "x", path=str(path))])
    assert "\x1b_G" not in raw and "1337;File" not in raw
    (url, label), = OSC8.findall(raw)
    assert url == f"file://{socket.gethostname()}" + str(path.parent).replace(" ", "%20") \
        .replace("é", "%C3%A9") + "/r%C3%A9sum%C3%A9%20%231.png"
    assert all(32 < ord(c) < 127 for c in url)
    assert label == str(path)
    assert "figure saved: " in SGR.sub("", raw)


@pytest.mark.fast
def test_a_planted_path_cannot_escape_the_link(tmp_path, monkeypatch):
    monkeypatch.setenv("INTERP_IMAGES", "iterm2")
    path = tmp_path / ("fig" + PLANTED.replace("/", "") + ".png")
    path.write_bytes(make_png())
    raw = render([display("image", "x", path=str(path))])
    assert "1337;File=inline=1" in raw  # the real image, inline
    rest = re.sub(r"\x1b\]1337;File=[^\x07]*\x07", "", raw)
    (url, label), = OSC8.findall(rest)
    assert all(32 < ord(c) < 127 for c in url) and "%1B%5D0%3Bpwned%07" in url
    assert "pwned" not in label and not BAD.search(label)
    assert not BAD.search(leftover(rest))


@pytest.mark.fast
def test_secret_in_a_path_is_never_put_in_a_link(tmp_path, monkeypatch):
    monkeypatch.setenv("INTERP_IMAGES", "none")
    path = tmp_path / f"{SECRET}.png"
    raw = render([display("image", "x", path=str(path))])
    assert SECRET not in raw and "[REDACTED].png" in raw and "\x1b]8" not in raw


@pytest.mark.fast
def test_not_a_terminal_prints_the_plain_path(figure, monkeypatch):
    path, _ = figure
    monkeypatch.setenv("INTERP_IMAGES", "kitty")
    raw = render([display("image", "x", path=str(path))], terminal=False)
    assert raw == f"figure saved: {path}\n"


@pytest.mark.fast
@pytest.mark.parametrize("content", [b"not a png", None, "big", "fifo"])
def test_unshowable_files_fall_back_to_the_link(tmp_path, content):
    path = tmp_path / "f.png"
    if content == "big":
        path.write_bytes(make_png() + b"\0" * (images.MAX_INLINE_BYTES + 1))
    elif content == "fifo":
        os.mkfifo(path)
    elif content is not None:
        path.write_bytes(content)
    result: list[str] = []
    worker = threading.Thread(target=lambda: result.append(
        render([display("image", "x", path=str(path))], image_protocol="kitty")), daemon=True)
    worker.start()
    worker.join(10)
    assert result, "the renderer blocked on the file"
    assert "\x1b_G" not in result[0] and len(OSC8.findall(result[0])) == 1


@pytest.mark.fast
def test_displays_start_on_their_own_line(figure):
    path, _ = figure
    events = [ev.event(ev.BLOCK_APPROVED, index=1, language="python", code="x", edited=False),
              ev.event(ev.BLOCK_OUTPUT, index=1, text="progress 50%"),
              display("image", "x", path=str(path)),
              ev.event(ev.BLOCK_OUTPUT, index=1, text="more"),
              display("table", "t", data=frame_data()),
              ev.event(ev.BLOCK_FILES, index=1, created=["a"], modified=[], deleted=[],
                       text="Files created: a"),
              ev.event(ev.BLOCK_FINISHED, index=1, status="ok", summary="ok", duration=0.1)]
    raw = render(events, terminal=False)
    lines = raw.splitlines()
    assert lines[0] == "progress 50%" and lines[1] == f"figure saved: {path}"
    assert lines[2] == "more" and lines[3].startswith("┏")
    assert lines[-2:] == ["Files created: a", "✓ ok (0.10 s)"]


# -- created files -------------------------------------------------------------------------
@pytest.mark.fast
def test_files_line_is_dim_and_sanitised():
    text = "Files created: out.json (1.2 KiB), chart.png; modified: data.csv"
    raw = render([ev.event(ev.BLOCK_FILES, index=1, created=["out.json", "chart.png"],
                           modified=["data.csv"], deleted=[], text=text),
                  ev.event(ev.BLOCK_FILES, index=2, created=[PLANTED], modified=[], deleted=[],
                           text=f"Files created: {PLANTED}{SECRET}")])
    assert re.search(r"\x1b\[2m" + re.escape(text) + r"\x1b\[0m", raw)
    assert not BAD.search(SGR.sub("", raw)) and "pwned" not in raw
    assert SECRET not in raw and "[REDACTED]" in raw


@pytest.mark.fast
def test_files_line_without_text_is_built_from_the_lists():
    raw = render([ev.event(ev.BLOCK_FILES, index=1, created=["a.csv", "b\x1b[2J.png"],
                           modified=[], deleted=["old.txt"]),
                  ev.event(ev.BLOCK_FILES, index=2, created=[], modified=[], deleted=[])],
                 terminal=False)
    assert raw == "Files created: a.csv, b.png; deleted: old.txt\n"


# -- the real interp in a pseudo-terminal ------------------------------------------------------
def test_real_interp_shows_table_figure_and_files(fake_server, interp_env):
    pytest.importorskip("pandas")
    pytest.importorskip("matplotlib")
    code = ("import pandas as pd, matplotlib.pyplot as plt\n"
            "pd.DataFrame({'a': range(5)}).to_csv('data.csv')\n"
            "plt.plot([1, 3, 2]); plt.show()\n"
            "pd.DataFrame({'n': range(10000), 'sq': [i * i for i in range(10000)]})")
    fake_server.script([fenced("python", code), "Done."])
    env = dict(interp_env["env"], TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1",
               INTERP_IMAGES="kitty", INTERP_PYTHON=sys.executable)
    cmd = interp_cmd() + model_args(fake_server)
    child = pexpect.spawn(cmd[0], cmd[1:], env=env, cwd=str(interp_env["cwd"]),
                          dimensions=(40, 120), encoding="utf-8", timeout=30)
    try:
        term = Term(child)
        term.task("make a table and a chart")
        assert term.question() == "python"
        term.line("y")
        figure = interp_env["cwd"] / "interp-output" / "figure-1-1.png"
        term.expect(r"figure saved: " + re.escape(str(figure)))
        term.expect(r"│ 9999 │\s+9999 │\s+99980001 │")
        term.expect(r"DataFrame: 10,000 rows × 2 columns \(showing 20 × 2\)")
        term.expect(r"Files created: data\.csv \(\d+ B, 5 rows × 2 columns: \(no name\), a\)")
        term.expect(r"✓ ok")
        term.expect("Done.")
        chunks = KITTY.findall(term.raw)
        assert base64.b64decode("".join(p for _, p in chunks)) == figure.read_bytes()
        assert (images.file_url(figure), str(figure)) in OSC8.findall(term.raw)
        assert term.exit_status() == 0
    finally:
        if child.isalive():
            child.close(force=True)
