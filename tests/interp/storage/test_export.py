"""Exports of conversations whose block records come from the real Python and shell runners,
and of a session file saved before records existed (tests/interp/storage/data)."""

from __future__ import annotations

import ast
import base64
import contextlib
import io
import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from interp.core import blocks

from interp.core.replies import report
from interp.core.history import Entry, last_number
from interp.core.replies.report import report_messages
from interp.storage.export import (ExportError, conversation_items, export_json, export_markdown,
                                   export_notebook, write_export)
from interp.storage.entries import from_saved
from interp.storage.legacy import find_figures
from interp.storage.conversations import ConversationStore
from languages import CapturedOutput, Display, Result, RunnerConfig, default_registry

nbformat = pytest.importorskip("nbformat")

LEGACY = Path(__file__).parent / "data"


@pytest.fixture
def run(tmp_path):
    """run(language, code, ran_code=None, call_id=None) -> the record of a real run, numbered
    as a session numbers blocks."""
    registry, runners, numbers = default_registry(plugins=False), {}, itertools.count(1)

    def execute(language: str, code: str, ran_code: str | None = None,
                call_id: str | None = None) -> blocks.BlockRecord:
        if language not in runners:
            config = RunnerConfig(cwd=str(tmp_path), spool_dir=str(tmp_path), grace=0.5,
                                  python=sys.executable, output_dir=str(tmp_path / "figs"))
            runners[language] = registry.create(language, config)
        index = next(numbers)
        result = [item for item in runners[language].run(ran_code or code, timeout=60, block=index)
                  if isinstance(item, Result)][-1]
        return blocks.ran(index, language, ran_code or code, result, call_id=call_id,
                          proposed=code if ran_code else None)

    execute.numbers = numbers
    yield execute
    for runner in runners.values():
        runner.stop()


FIGURE = "import matplotlib.pyplot as plt\nplt.plot([1, 4, 9])\nplt.show()"


@pytest.fixture
def fenced(run, tmp_path):
    """A conversation in the fenced-block form: two turns, an edit, a decline, a figure."""
    pytest.importorskip("matplotlib")
    b1 = "squares = [i * i for i in range(5)]\nprint(squares)\nsum(squares)"
    b2 = "echo shell says hi\nprintf 'a\\nb\\n' | wc -l"
    b3 = FIGURE
    b4 = "rm -rf /tmp/everything"
    b5 = "total = sum(squares)\nprint('total', total)"
    edited = "total = sum(squares) * 2\nprint('total', total)"
    reply1 = (f"I'll compute squares.\n\n```python\n{b1}\n```\n\nAn example row:\n\n```csv\n"
              f"a,b\n1,2\n```\n\nAnd check the shell:\n\n```bash\n{b2}\n```\n")
    reply2 = f"Now a figure.\n\n```py\n{b3}\n```\n\nCleanup:\n\n```sh\n{b4}\n```\n"
    reply3 = f"Doubling:\n\n```python\n{b5}\n```"
    first = [run("python", b1), run("shell", b2)]
    second = [run("python", b3),
              blocks.not_run(next(run.numbers), "shell", b4, "declined", "too dangerous")]
    return as_entries([
        {"role": "system", "content": "You are interp."},
        {"role": "user", "content": "Compute squares and plot them", "_task": True},
        {"role": "assistant", "content": reply1}, *report_messages(first),
        {"role": "assistant", "content": reply2}, *report_messages(second),
        {"role": "assistant", "content": reply3}, *report_messages([run("python", b5, edited)]),
        {"role": "assistant", "content": "Done: the total is 60."},
    ])


@pytest.fixture
def tool_form(run, tmp_path):
    """A conversation in the tool-call form, with an error and an unanswered call."""
    pytest.importorskip("matplotlib")
    c1 = "data = {'a': 3, 'b': 4}\nfor k, v in sorted(data.items()):\n    print(k, v * 10)"
    c2 = FIGURE
    c3 = "1 / 0"
    c4 = "console.log(6 * 7)"

    def call(i, language, code):
        return {"id": f"call_{i}", "type": "function", "function": {
            "name": "execute", "arguments": json.dumps({"language": language, "code": code})}}

    return as_entries([
        {"role": "system", "content": "You are interp."},
        {"role": "user", "content": "Summarise data", "_task": True},
        {"role": "assistant", "content": "Let me look.", "tool_calls": [call(1, "python", c1)]},
        *report_messages([run("python", c1, call_id="call_1")]),
        {"role": "assistant", "content": None,
         "tool_calls": [call(2, "python", c2), call(3, "python", c3), call(4, "javascript", c4)]},
        *report_messages([run("python", c2, call_id="call_2"),
                          run("python", c3, call_id="call_3")]),
        {"role": "tool", "tool_call_id": "call_4", "_output": True,
         "content": "Not run or not finished: the turn was interrupted."},
        {"role": "user", "content": "Thanks", "_task": True},
        {"role": "assistant", "content": "You're welcome."},
    ])


@pytest.fixture(scope="module")
def legacy():
    """The messages of a session file written by interp before block records (a1b6baf)."""
    return ConversationStore(LEGACY).load("legacy-session")


def as_entries(items):
    """Entries from saved-form dicts (a session file's lines), entries left as they are."""
    return [m if isinstance(m, Entry) else from_saved(m) for m in items]


def blocks_of(messages):
    return [item for kind, item in conversation_items(messages) if kind == "block"]


def validate(nb: dict) -> None:
    nbformat.validate(nbformat.reads(json.dumps(nb), as_version=4))


def rerun_python(cells: list[dict]) -> list[str]:
    """Run python code cells in order in a fresh namespace, as interp's runner does (a trailing
    expression's value is displayed); returns each cell's stdout."""
    namespace: dict = {"__name__": "__main__"}
    outputs = []
    for cell in cells:
        tree = ast.parse("".join(cell["source"]))
        last = ast.Interactive(body=[tree.body.pop()]) if isinstance(tree.body[-1], ast.Expr) \
            else None
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            exec(compile(tree, "<cell>", "exec"), namespace)
            if last is not None:
                exec(compile(last, "<cell>", "single"), namespace)
        outputs.append(buffer.getvalue())
    return outputs


def stdout_of(cell: dict) -> str:
    return "".join("".join(o["text"]) for o in cell["outputs"]
                   if o["output_type"] == "stream" and o["name"] == "stdout")


# -- reading the history ----------------------------------------------------------------------
def test_fenced_blocks_are_matched_with_their_records(fenced, tmp_path):
    found = blocks_of(fenced)
    assert [(b.index, b.language, b.ran) for b in found] == [
        (1, "python", True), (2, "shell", True), (3, "python", True), (4, "shell", False),
        (5, "python", True)]
    assert found[0].output_text() == "[0, 1, 4, 9, 16]\n30\n" and found[0].summary == "ok"
    assert found[1].output_text().split() == ["shell", "says", "hi", "2"]
    assert found[2].figures == [str(tmp_path / "figs" / "figure-3-1.png")]
    assert found[3].declined and found[3].reason == "too dangerous"
    assert found[4].edited and "* 2" in found[4].code and found[4].output_text() == "total 60\n"


def test_tool_calls_are_matched_with_their_records(tool_form, tmp_path):
    found = blocks_of(tool_form)
    assert [(b.index, b.language, b.ran) for b in found] == [
        (1, "python", True), (2, "python", True), (3, "python", True), (4, "javascript", False)]
    assert found[0].output_text() == "a 30\nb 40\n"
    assert found[2].summary.startswith("error: ZeroDivisionError") and found[2].status == "error"
    assert found[3].reason.startswith("Not run or not finished")  # no record: read as before


def test_the_words_the_model_was_given_do_not_matter(run, fenced, tool_form, monkeypatch):
    """Exports read the records: rewording (or breaking) the model's text changes nothing."""
    before = [(export_markdown(m), export_notebook(m)) for m in (fenced, tool_form)]
    for messages in (fenced, tool_form):
        for message in messages:
            if message.output and message.blocks:
                messages[messages.index(message)] = message.with_content(
                    "Résultat : ça a marché. Output: ``` Result: nope.")
    after = [(export_markdown(m), export_notebook(m)) for m in (fenced, tool_form)]
    assert after == before
    monkeypatch.setattr(report, "model_text", lambda record, *_, **__: "[[reworded]]")
    record = run("python", "print('same')")
    reworded = report_messages([record])
    assert reworded[0].content == f"[Block {record.index}, python]\n[[reworded]]"
    found = blocks_of(as_entries([{"role": "user", "content": "t"},
                                  {"role": "assistant", "content": "```python\nprint('same')\n```"},
                                  *reworded]))
    assert found == [record] and found[0].output_text() == "same\n"


@pytest.mark.fast
def test_find_figures():
    text = ("[figure saved: /tmp/a/fig-1.png]\nsaved ./out/plot.PNG and plots/x_2.png, again "
            "/tmp/a/fig-1.png; url https://example.com/logo.png; not a figure: png, .png")
    assert find_figures(text) == ["/tmp/a/fig-1.png", "./out/plot.PNG", "plots/x_2.png"]


# -- a session file saved before block records -------------------------------------------
@pytest.mark.fast
def test_a_session_file_in_the_old_format_keeps_loading_and_exporting(legacy):
    found = blocks_of(legacy)
    assert [(b.index, b.language, b.status) for b in found] == [
        (1, "python", "ok"), (2, "shell", "ok"), (3, "python", "ok"), (4, "shell", "declined"),
        (5, "python", "ok"), (6, "python", "ok"), (7, "python", "error"), (8, "python", "ok")]
    assert found[0].output_text() == "[0, 1, 4, 9, 16]\n30"
    assert found[2].figures == ["/tmp/blocks_legacy/work/interp-output/figure-2-1.png"]
    assert found[3].reason == "too dangerous"
    assert found[4].edited and found[4].code.startswith("total = sum(squares) * 2")
    assert found[6].summary == "error: ZeroDivisionError: division by zero"
    assert found[7].files.text == "Files created: out.txt (5 B)"
    md = export_markdown(legacy, title="Old")
    assert md.startswith("# Old\n\n## User\n\nCompute squares and plot them")
    assert "*▶ shell block 2*\n\n```bash\necho shell says hi" in md
    assert "![figure](/tmp/blocks_legacy/work/interp-output/figure-2-1.png)" in md
    assert "*Not run: declined by the user (too dangerous)*" in md
    assert "*Result: error: ZeroDivisionError: division by zero.*" in md
    assert "*Files created: out.txt (5 B)*" in md and md.rstrip().endswith("You're welcome.")
    nb = export_notebook(legacy)
    validate(nb)
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert [c["execution_count"] for c in code] == [1, 2, 3, 5, 6, 7, 8]
    assert rerun_python([c for c in code if c["execution_count"] in (1, 5)]) == [
        stdout_of(c) for c in code if c["execution_count"] in (1, 5)]
    assert last_number(legacy) == 8  # a resumed old conversation goes on from 9


# -- markdown ---------------------------------------------------------------------------------
def test_markdown_has_tasks_prose_code_outputs_and_figures(fenced, tmp_path):
    md = export_markdown(fenced, title="Squares")
    assert md.startswith("# Squares\n\n## User\n\nCompute squares and plot them\n\n## Assistant\n")
    assert "I'll compute squares." in md and "```csv\na,b\n1,2\n```" in md
    assert "*▶ python block 1*\n\n```python\nsquares = [i * i for i in range(5)]" in md
    assert "*▶ shell block 2*\n\n```bash\necho shell says hi" in md
    assert "Output:\n\n```\n[0, 1, 4, 9, 16]\n30\n```\n\n*Result: ok.*" in md
    assert f"![figure]({tmp_path / 'figs' / 'figure-3-1.png'})" in md
    assert "*Not run: declined by the user (too dangerous)*" in md
    assert ("*▶ python block 5*\n\n*The user edited this code before it ran:*\n\n"
            "```python\ntotal = sum(squares) * 2") in md
    assert "You are interp." not in md and md.rstrip().endswith("Done: the total is 60.")


def test_markdown_of_the_tool_form(tool_form, tmp_path):
    md = export_markdown(tool_form)
    assert md.startswith("# interp conversation\n\n## User\n\nSummarise data")
    assert "Let me look.\n\n*▶ python block 1*\n\n```python\ndata = {'a': 3, 'b': 4}" in md
    assert f"![figure]({tmp_path / 'figs' / 'figure-2-1.png'})" in md
    assert "*Result: error: ZeroDivisionError: division by zero.*" in md
    assert "```javascript\nconsole.log(6 * 7)\n```\n\n*Not run: Not run or not finished" in md
    assert md.index("## User\n\nThanks") < md.index("You're welcome.")


def test_output_containing_backticks_gets_a_longer_fence(run):
    code = "print('```\\nnot the end\\n```')"
    messages = as_entries([{"role": "user", "content": "go", "_task": True},
                {"role": "assistant", "content": f"```python\n{code}\n```"},
                *report_messages([run("python", code)])])
    assert "````\n```\nnot the end\n```\n````" in export_markdown(messages)


def test_long_output_names_its_spool_file(run, tmp_path):
    code = "for i in range(5000): print('row', i)"
    messages = as_entries([{"role": "user", "content": "go", "_task": True},
                {"role": "assistant", "content": f"```python\n{code}\n```"},
                *report_messages([run("python", code)])])
    md = export_markdown(messages)
    assert f"full output in {tmp_path / 'block-1-output.txt'}" in md and "row 4999" in md


def test_tables_are_exported_with_their_text(run, tmp_path):
    pytest.importorskip("pandas")
    code = "import pandas as pd\npd.DataFrame({'city': ['Oslo'], 'temp': [3]})"
    messages = as_entries([{"role": "user", "content": "go", "_task": True},
                {"role": "assistant", "content": f"```python\n{code}\n```"},
                *report_messages([run("python", code)])])
    assert "Oslo" in export_markdown(messages)
    cell = next(c for c in export_notebook(messages)["cells"] if c["cell_type"] == "code")
    shown = [o for o in cell["outputs"] if o["output_type"] == "display_data"]
    assert "Oslo" in "".join(shown[0]["data"]["text/plain"])


# -- notebook ---------------------------------------------------------------------------------
def test_notebook_validates_and_has_the_expected_cells(fenced, tmp_path):
    nb = export_notebook(fenced, title="Squares")
    validate(nb)
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert [c["execution_count"] for c in code] == [1, 2, 3, 5]  # block 4 was declined
    assert [c["metadata"]["interp"] for c in code][1] == {"block": 2, "status": "ok"}
    assert "".join(code[1]["source"]).startswith("%%bash\necho shell says hi")
    image = [o for o in code[2]["outputs"] if o["output_type"] == "display_data"]
    assert base64.b64decode(image[0]["data"]["image/png"]).startswith(b"\x89PNG")
    assert "".join(code[3]["source"]) == "total = sum(squares) * 2\nprint('total', total)"
    markdown = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    assert "**User:**\n\nCompute squares and plot them" in markdown
    assert "rm -rf /tmp/everything" in markdown and "*Not run: declined by the user" in markdown


def test_notebook_python_cells_rerun_with_the_same_output(fenced, tool_form):
    for messages in (fenced, tool_form):
        nb = export_notebook(messages)
        cells = [c for c in nb["cells"] if c["cell_type"] == "code"
                 and not "".join(c["source"]).startswith("%%bash")
                 and not any(o.get("name") == "stderr" for o in c["outputs"])]
        assert len(cells) >= 2
        assert rerun_python(cells) == [stdout_of(c) for c in cells]


def test_notebook_bash_cells_rerun_with_the_same_output(fenced, tmp_path):
    cells = [c for c in export_notebook(fenced)["cells"]
             if c["cell_type"] == "code" and "".join(c["source"]).startswith("%%bash\n")]
    assert len(cells) == 1
    body = "".join(cells[0]["source"]).removeprefix("%%bash\n")
    done = subprocess.run(["bash", "-c", body], capture_output=True, text=True, cwd=tmp_path)
    assert done.stdout == stdout_of(cells[0])


def test_notebook_of_the_tool_form(tool_form, tmp_path):
    nb = export_notebook(tool_form)
    validate(nb)
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert len(code) == 3
    assert stdout_of(code[0]) == "a 30\nb 40\n"
    assert any(o["output_type"] == "display_data" for o in code[1]["outputs"])
    errors = [o for o in code[2]["outputs"] if o.get("name") == "stderr"]
    assert "Result: error: ZeroDivisionError" in "".join(errors[0]["text"])
    js = [c for c in nb["cells"] if "console.log" in "".join(c["source"])]
    assert js[0]["cell_type"] == "markdown"


@pytest.mark.fast
def test_missing_figure_is_linked_not_embedded(run, tmp_path):
    gone = str(tmp_path / "gone.png")
    result = Result(status="ok", output=CapturedOutput("", "", 0, 0, 0, None),
                    displays=(Display("image", f"[figure saved: {gone}]", gone),))
    messages = as_entries([{"role": "user", "content": "plot", "_task": True},
                {"role": "assistant", "content": "```python\nplot()\n```"},
                *report_messages([blocks.ran(1, "python", "plot()", result)])])
    nb = export_notebook(messages)
    validate(nb)
    cell = next(c for c in nb["cells"] if c["cell_type"] == "code")
    assert [o["data"] for o in cell["outputs"]] == [{"text/plain": [f"<figure {gone} (missing)>"]}]
    assert f"![figure]({gone})" in export_markdown(messages)


@pytest.mark.fast
def test_block_without_a_result_is_a_note(tmp_path):
    messages = as_entries([{"role": "user", "content": "go", "_task": True},
                {"role": "assistant", "content": "```python\nprint(1)\n```"}])
    nb = export_notebook(messages)
    validate(nb)
    assert all(c["cell_type"] == "markdown" for c in nb["cells"])
    assert "No result was recorded" in export_markdown(messages)


# -- JSON and write_export --------------------------------------------------------------------
def test_json_round_trip(fenced, tool_form):
    for messages in (fenced, tool_form):
        assert [from_saved(m) for m in json.loads(export_json(messages))] == messages


@pytest.mark.parametrize("name, fmt, expected", [
    ("out.md", None, "markdown"), ("out.ipynb", None, "notebook"), ("out.json", None, "json"),
    ("out.txt", "md", "markdown"), ("out", "ipynb", "notebook"), ("OUT.JSON", None, "json")])
def test_write_export_picks_the_format(fenced, tmp_path, name, fmt, expected):
    path = tmp_path / name
    assert write_export(fenced, path, fmt, title="T") == expected
    text = path.read_text(encoding="utf-8")
    if expected == "markdown":
        assert text.startswith("# T\n")
    elif expected == "notebook":
        validate(json.loads(text))
    else:
        assert [from_saved(m) for m in json.loads(text)] == fenced


def test_write_export_errors(fenced, tmp_path):
    with pytest.raises(ExportError, match="Unknown export file type '.txt'"):
        write_export(fenced, tmp_path / "out.txt")
    with pytest.raises(ExportError, match="Unknown export format 'pdf'"):
        write_export(fenced, tmp_path / "out.md", "pdf")
    with pytest.raises(ExportError, match="Cannot write"):
        write_export(fenced, tmp_path / "no" / "such" / "dir.md")


def test_notebook_reruns_in_a_real_jupyter_kernel_with_the_same_results(fenced, tmp_path):
    """Execute the exported notebook with nbclient and a real IPython kernel."""
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    nb = nbformat.reads(json.dumps(export_notebook(fenced)), as_version=4)
    stored = [_visible(cell) for cell in nb.cells if cell.cell_type == "code"]
    client = nbclient.NotebookClient(nb, kernel_name="python3", timeout=60,
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    rerun = [_visible(cell) for cell in nb.cells if cell.cell_type == "code"]
    assert len(rerun) == 4
    assert rerun == stored


def _visible(cell) -> str:
    """What a cell shows: its stdout and the value of a trailing expression, whitespace-folded."""
    parts = []
    for out in cell.outputs:
        if out.output_type == "stream" and out.name == "stdout":
            parts.append("".join(out.text))
        elif out.output_type == "execute_result":
            parts.append(out.data.get("text/plain", ""))
    return " ".join("".join(parts).split())
