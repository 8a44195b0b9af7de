"""The typed block record: built from real runner results, stored as JSON, read back leniently,
and the one place the model's text is rendered from."""

from __future__ import annotations

import json

import pytest

from interp.core import blocks
from interp.core.blocks import BlockRecord, FileChanges
from interp.core.history import Entry, plotted
from interp.core.replies.report import model_text, report_messages, report_text
from interp.storage.entries import from_saved, to_saved
from languages import CapturedOutput, Display, Result, RunnerConfig
from languages.python import PythonRunner


@pytest.fixture
def python(tmp_path):
    runner = PythonRunner(RunnerConfig(cwd=str(tmp_path), spool_dir=str(tmp_path / "spool"),
                                       head_chars=200, tail_chars=200, grace=0.5))
    yield runner
    runner.stop()


def result_of(runner, code: str, block: int) -> Result:
    return [e for e in runner.run(code, timeout=60, block=block) if isinstance(e, Result)][-1]


def test_a_record_from_a_real_run_keeps_every_fact(python):
    result = result_of(python, "print('\\x1b[31mred\\x1b[0m')\n1 / 0", 7)
    record = blocks.ran(7, "python", "1 / 0", result, proposed="2 / 0",
                        files=FileChanges(("a.csv",), text="Files created: a.csv (3 B)"),
                        python="/usr/bin/python3", call_id="call_1")
    assert (record.index, record.language, record.status, record.ran) == (7, "python", "error", True)
    assert record.edited and not record.declined and not record.denied
    assert record.output_head.startswith("red\n") and "\x1b" not in record.output_head
    assert 'File "<block 7>"' in record.output_head  # the block number names the traceback
    assert record.error.startswith("ZeroDivisionError") and record.summary.startswith("error:")
    assert record.duration > 0 and record.files.created == ("a.csv",)
    assert record.figures == [] and record.tables == [] and not record.truncated


def test_long_output_is_cut_and_its_spool_named_by_the_block(python, tmp_path):
    result = result_of(python, "for i in range(2000): print('line', i)", 12)
    record = blocks.ran(12, "python", "x", result)
    assert record.truncated and record.omitted_lines > 0
    assert record.spool_path == str(tmp_path / "spool" / "block-12-output.txt")
    assert record.output_head.startswith("line 0\n") and record.output_tail.endswith("line 1999\n")
    text = record.output_text()
    assert f"full output in {record.spool_path}" in text and len(text) < 1000
    python.stop()  # the spool outlives the runner
    assert open(record.spool_path).read().count("\n") == 2000


@pytest.mark.fast
def test_round_trip_through_json_and_lenient_reading():
    record = BlockRecord(
        index=3, language="python", code="plot()", status="ok", summary="ok",
        output_head="hi\n", total_chars=3, duration=0.5,
        displays=(Display("image", "[figure saved: /f/a.png]", "/f/a.png",
                          {"format": "png", "width": 4}),
                  Display("table", "  a\n0 1", None, {"columns": ["a"], "rows": [["1"]]})),
        files=FileChanges(("x.txt",), ("y.txt",), (), "Files created: x.txt; modified: y.txt"))
    raw = json.loads(json.dumps(record.to_dict()))
    assert raw["v"] == 1 and raw["figures"] == ["/f/a.png"]
    assert raw["edited"] is False and raw["declined"] is False and raw["denied"] is False
    assert BlockRecord.from_dict(raw) == record
    # unknown keys are kept, wrong types fall back to defaults, a non-record is None
    raw.update(future="x", exit_code="nope", interrupted=1, displays=[5, {"kind": "image"}])
    back = BlockRecord.from_dict(raw)
    assert back.extra == {"future": "x"} and back.exit_code is None and back.interrupted is False
    assert back.displays == () and back.to_dict()["future"] == "x"
    for bad in (None, [], {"index": "1", "language": "python", "code": "", "status": "ok"},
                {"index": True, "language": "python", "code": "", "status": "ok"},
                {"index": 1, "language": "python", "code": None, "status": "ok"}):
        assert BlockRecord.from_dict(bad) is None


@pytest.mark.fast
def test_not_run_records():
    declined = blocks.not_run(4, "shell", "rm -rf /", "declined", "too dangerous")
    denied = blocks.not_run(5, "shell", "curl x", "denied", "deny rule `shell: curl *`")
    skipped = blocks.not_run(6, "ruby", "puts 1", "skipped", "Language 'ruby' is not available")
    assert declined.declined and not declined.ran and denied.denied and not skipped.ran
    assert model_text(declined) == ("The block was declined by the user and did not run. "
                                    "Reason: too dangerous")
    assert model_text(denied).startswith("The block was denied by policy and did not run.")
    assert model_text(skipped) == "Language 'ruby' is not available"
    with pytest.raises(ValueError):
        blocks.not_run(1, "python", "", "ok")


@pytest.mark.fast
def test_model_text_is_rendered_from_the_record():
    output = "```\nnested fence\n```\nModuleNotFoundError: No module named 'openpyxl'\n"
    result = Result(status="error", output=CapturedOutput(output, "", 0, 0, len(output), None),
                    error="ModuleNotFoundError: No module named 'openpyxl'",
                    displays=(Display("image", "[figure saved: /tmp/f/a.png]", "/tmp/f/a.png"),))
    record = blocks.ran(2, "python", "import openpyxl", result, python="/x/py",
                        proposed="import openpyx",
                        files=FileChanges(("a.csv",), text="Files created: a.csv (3 B)"))
    text = model_text(record)
    assert text.startswith("The user edited the code before running it. The code that ran:\n"
                           "```python\nimport openpyxl\n```\nOutput:\n````\n```\nnested fence\n")
    assert "[figure saved: /tmp/f/a.png]\n````\nHint: openpyxl is not installed" in text
    assert "`/x/py -m pip install openpyxl`" in text
    assert text.endswith("Files created: a.csv (3 B)\nResult: error: ModuleNotFoundError: "
                         "No module named 'openpyxl'.")
    assert report_text([record]).startswith("[Block 2, python]\nThe user edited")


@pytest.mark.fast
def test_report_messages_keep_the_records_and_figures():
    fig = Display("image", "[figure saved: /f/1.png]", "/f/1.png")
    ok = Result(status="ok", output=CapturedOutput("", "", 0, 0, 0, None), displays=(fig,))
    fenced = [blocks.ran(8, "python", "a", ok), blocks.not_run(9, "shell", "b", "declined")]
    called = blocks.ran(10, "python", "c", ok, call_id="call_7")
    tool, user = report_messages([called, *fenced])
    assert tool.role == "tool" and tool.message["tool_call_id"] == "call_7" and tool.output
    assert tool.blocks == (called,) and tool.images == ("/f/1.png",)
    assert user.role == "user" and user.blocks == tuple(fenced) and user.images == ("/f/1.png",)
    assert user.content.startswith("[Block 8, python]\n") and "\n\n[Block 9, shell]\n" in user.content
    assert report_messages([]) == []


def test_what_saved_figures_plot_is_kept_and_read_back_by_path(python, tmp_path):
    """A figure saved with savefig and one interp saved both carry their summary through the
    record, the session file's JSON and plotted(), while the model's text stays as before."""
    code = ("import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
            "plt.bar(['a', 'b'], [1, 2]); plt.savefig('mine.png')\nplt.figure(); plt.plot([1, 2, 3])")
    result = result_of(python, code, 1)
    record = blocks.ran(1, "python", code, result)
    mine = str(tmp_path / "mine.png")
    assert set(record.plots) == {mine, *record.figures} and len(record.figures) == 1
    assert record.plots[mine].series[0].items == {"a": 1.0, "b": 2.0}
    assert record.plots[record.figures[0]].kinds == ("line",)
    assert "mine.png" not in model_text(record) and "[figure saved:" in model_text(record)
    messages = [from_saved(json.loads(json.dumps(to_saved(m)))) for m in report_messages([record])]
    assert plotted(messages) == record.plots
    assert plotted([Entry({"role": "user", "content": "no records"})]) == {}
