"""Data work through the library Session: real litellm, the fake OpenAI server, real runners.

CSV to JSON field by field, figures (events, paths in the result text, image parts for vision
models only), files created by a block, attachments and the missing-package hint. Timeouts are
hang guards only, never assertions.
"""

from __future__ import annotations
from png_kit import file_png_size

import base64
import csv
import json
import os
import sys
from pathlib import Path

import pytest

from fake_openai import Reply
from session_kit import finished, of, py, run

from interp.core import exits
from interp.core.history import Entry
from interp.core.replies.report import ANSWER_CHECK
from interp.core.prompt.vision import MAX_IMAGES

from interp.core.prompt.vision import image_parts
from interp.core.files.attachments import AttachmentError
from interp.storage.export import export_markdown, export_notebook
from interp.storage.conversations import ConversationStore
from languages import RunnerConfig

PNG = b"\x89PNG\r\n\x1a\n"




def with_python(make_session, server, **kw):
    """A session whose Python runner is this interpreter (the test venv has matplotlib)."""
    runner = RunnerConfig(cwd=str(make_session.work), python=sys.executable)
    return make_session(server, runner=runner, **kw)


def image_urls(message: dict) -> list[str]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [p["image_url"]["url"] for p in content if p.get("type") == "image_url"]


def all_image_urls(request: dict) -> list[str]:
    return [u for m in request["messages"] for u in image_urls(m)]


def as_text(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if p.get("type") == "text")
    return content or ""


# -- CSV to JSON --------------------------------------------------------------------------------

CSV_TEXT = (
    'id,name,city,amount,note\n'
    '1,"Smith, John",Zürich,12.50,\n'
    '2,Ana María,"São Paulo, BR",7,"said ""hi"", left"\n'
    '3,李雷,北京,,emoji 🎉\n'
    '4,,Oslo,-3.25,"multi\nline"\n'
)

CONVERT = '''\
import csv, json

def number(text):
    if text == "":
        return None
    value = float(text)
    return int(value) if value.is_integer() else value

with open("people.csv", newline="", encoding="utf-8") as handle:
    rows = list(csv.DictReader(handle))
for row in rows:
    row["id"] = int(row["id"])
    row["amount"] = number(row["amount"])
    row["name"] = row["name"] or None
    row["note"] = row["note"] or None
with open("people.json", "w", encoding="utf-8") as handle:
    json.dump(rows, handle, ensure_ascii=False, indent=2)
print(len(rows), "rows written")
'''

EXPECTED = [
    {"id": 1, "name": "Smith, John", "city": "Zürich", "amount": 12.5, "note": None},
    {"id": 2, "name": "Ana María", "city": "São Paulo, BR", "amount": 7,
     "note": 'said "hi", left'},
    {"id": 3, "name": "李雷", "city": "北京", "amount": None, "note": "emoji 🎉"},
    {"id": 4, "name": None, "city": "Oslo", "amount": -3.25, "note": "multi\nline"},
]


def test_csv_to_json_field_by_field(server, make_session):
    (make_session.work / "people.csv").write_text(CSV_TEXT, encoding="utf-8")
    server.script(["Converting.\n" + py(CONVERT), "Wrote people.json."])
    session = make_session(server)
    session.attach("people.csv")
    events = run(session, "convert people.csv to people.json")

    assert [d["status"] for d in of(events, "block.finished")] == ["ok"]
    produced = json.loads((make_session.work / "people.json").read_text(encoding="utf-8"))
    assert len(produced) == len(EXPECTED)
    for got, want in zip(produced, EXPECTED):
        assert list(got) == list(want)
        for key in want:
            assert got[key] == want[key], (want["id"], key)
            assert type(got[key]) is type(want[key]), (want["id"], key)
    # the csv module agrees with what the model was shown about the source
    with open(make_session.work / "people.csv", newline="", encoding="utf-8") as handle:
        assert len(list(csv.reader(handle))) == 5

    # the attachment went into the task's message: path, size, type, preview
    task = server.requests[0]["messages"][1]["content"]
    assert task.startswith("convert people.csv to people.json\n\nAttached files:\n\n")
    assert f"File: {make_session.work / 'people.csv'}" in task
    assert "Type: CSV" in task and "Columns: 5 (comma-delimited)" in task
    assert '1,"Smith, John",Zürich,12.50,' in task

    # the created file is reported to the person (event) and the model (result text)
    files = of(events, "block.files")
    assert files == [{"index": 1, "created": ["people.json"], "modified": [], "deleted": [],
                      "text": files[0]["text"]}]
    assert files[0]["text"].startswith("Files created: people.json (")
    types = [e.type for e in events if getattr(e, "index", None) == 1]
    assert types.index("block.files") < types.index("block.finished")
    report = server.requests[1]["messages"][-1]["content"]
    assert "4 rows written" in report and "Files created: people.json (" in report
    assert report.rstrip().endswith(
        f"Result: ok.\nYour task: convert people.csv to people.json\n{ANSWER_CHECK}")

    # exports keep the output apart from the files line
    markdown = export_markdown(session.messages)
    assert "Output:\n\n```\n4 rows written\n```" in markdown
    assert "*Files created: people.json (" in markdown
    cell = next(c for c in export_notebook(session.messages)["cells"] if c["cell_type"] == "code")
    assert cell["outputs"] == [{"output_type": "stream", "name": "stdout",
                                "text": ["4 rows written\n"]}]


def test_modified_and_deleted_files_are_reported(server, make_session):
    work = make_session.work
    (work / "keep.txt").write_text("old")
    (work / "gone.txt").write_text("bye")
    os.utime(work / "keep.txt", ns=(1_000_000_000, 1_000_000_000))
    server.script([py("import os\nopen('keep.txt', 'w').write('new content')\n"
                      "os.remove('gone.txt')"),
                   py("x = 1"), "done"])
    events = run(make_session(server), "edit files")
    files = of(events, "block.files")
    assert [(f["created"], f["modified"], f["deleted"]) for f in files] == [
        ([], ["keep.txt"], ["gone.txt"])]  # the second block changed nothing: no event
    assert files[0]["text"] == "Files modified: keep.txt (11 B); deleted: gone.txt"
    assert "Files modified: keep.txt (11 B); deleted: gone.txt" in as_text(
        server.requests[1]["messages"][-1])
    assert "Files " not in as_text(server.requests[2]["messages"][-1])


def test_attach_errors_and_relative_paths(server, make_session):
    session = make_session(server)
    with pytest.raises(AttachmentError, match="no such file"):
        session.attach("missing.csv")
    (make_session.work / "sub").mkdir()
    with pytest.raises(AttachmentError, match="directory"):
        session.attach("sub")
    assert session.attachments == []


def test_a_file_the_task_names_is_described_once(server, make_session):
    (make_session.work / "sales.csv").write_text("region,units\nNorth,3\nSouth,4\n")
    session = make_session(server, mentions=True, tools="off")
    session.attach("sales.csv")  # attached and named: described once
    events = run(session, "What is the total of units in sales.csv? And in missing.csv?")
    task = server.requests[0]["messages"][-1]["content"]
    assert task.count("File: ") == 1 and "Columns: 2 (comma-delimited)" in task
    assert notices_of(events) == []  # attached by hand: no second notice
    events = run(session, "Now the mean of units in sales.csv.")
    task = server.requests[1]["messages"][-1]["content"]
    assert task.startswith("Now the mean of units in sales.csv.\n\nAttached files:\n\nFile: ")
    assert notices_of(events)[:1] == [f"Named in the task, so described to the model: "
                                  f"{make_session.work / 'sales.csv'} (CSV (text), 29 B)."]
    assert "File: " not in run_task_text(make_session(server, mentions=False), server,
                                         "sales.csv again")


# Qwen2.5-Coder-1.5B given a CSV file's description (a real transcript): an answer from the
# preview of its first lines (the right one is Gizmo, 147).
QWEN_FROM_PREVIEW = ("The product that sold the most units in the second quarter (April to June) "
                     "according to the sales.csv file is Gizmo, with a total of 60 units sold.")


def test_an_answer_from_a_files_preview_is_asked_to_run_code_once(server, make_session):
    (make_session.work / "sales.csv").write_text("month,product,units\n4,Gizmo,60\n")
    server.script([QWEN_FROM_PREVIEW, "```python\nprint(147)\n```", "Gizmo, 147 units.",
                   QWEN_FROM_PREVIEW])
    session = make_session(server, mentions=True, tools="off")
    events = run(session, "Which product sold the most units in Q2 in sales.csv?")
    assert [m["final"] for m in of(events, "message")] == [False, False, True]
    assert server.requests[1]["messages"][-1]["content"].rsplit("\n\n", 1)[1].startswith(
        "Only a preview of sales.csv was shown to you, and no code has run yet. Reply with a "
        "```python block")
    assert of(events, "block.finished")[0]["status"] == "ok"
    events = run(session, "And which sold the least?")  # no file named: the answer stands
    assert [m["final"] for m in of(events, "message")] == [True]


def test_a_question_whose_block_printed_nothing_gets_a_block_that_prints_the_value(
        server, make_session):
    """Qwen2.5-Coder-1.5B computed a value, printed nothing and stated one it never saw (a real
    transcript); replayed with the print block shown, 3 of 4 replies sent it. It runs in the
    same session, which kept the value."""
    (make_session.work / "matrix.csv").write_text("2,1\n1,3\n")
    silent = ("import csv\nwith open('matrix.csv') as f:\n"
              "    m = [[float(x) for x in row] for row in csv.reader(f)]\n"
              "determinant = m[0][0] * m[1][1] - m[0][1] * m[1][0]\n")
    printing = 'print("determinant:", determinant)'
    server.script([py(silent), py(printing), "The determinant is 5."])
    events = run(make_session(server, tools="off"), "What is the determinant of matrix.csv?")
    assert [m["final"] for m in of(events, "message")] == [False, False, True]
    asked = server.requests[1]["messages"][-1]["content"]
    assert asked.endswith("Block 1 printed nothing, so no output answers the task yet. The "
                          "session keeps its variables: reply with this ```python block to "
                          "print the values the task asks for (not run yet), then answer from "
                          f"its output:\n```python\n{printing}\n```")
    assert "determinant: 5.0" in server.requests[2]["messages"][-1]["content"]


def test_three_failed_blocks_in_a_row_ask_the_model_for_its_answer_once(server, make_session):
    """Qwen2.5-Coder-1.5B on data it did not write (real transcripts): after three failed blocks
    in a row it patched the code until the turns ran out and never got it right; it is asked
    for its answer, or what went wrong, instead, and that reply is the answer (asked for the
    task's form, it wrote a value it never computed)."""
    (make_session.work / "people.csv").write_text("name,age\nAda,30\nBo,40\n")
    load = "rows = [line.strip().split(',') for line in open('people.csv')]\n"
    fixes = [load + "print(sum(float(r[0]) for r in rows))",
             load + "print(sum(float(r[0]) for r in rows[1:]))",
             load + "print(sum(float(r[0].strip()) for r in rows[1:]))"]
    stopped = "The name column holds text, so it cannot be summed as numbers."
    server.script([*map(py, fixes), stopped, "unused"])
    events = run(make_session(server, tools="off"), "What is the sum of the first column of "
                 "people.csv? Give your answer in this format: @sum[value]")
    assert [b["status"] for b in of(events, "block.finished")] == ["error"] * 3
    assert [m["final"] for m in of(events, "message")] == [False, False, False, True]
    assert [n["check"] for n in of(events, "notice") if n.get("check")] == ["failing-streak"]
    assert "The code failed" in server.requests[2]["messages"][-1]["content"]
    asked = server.requests[3]["messages"][-1]["content"]
    assert asked.endswith("Blocks 1 to 3 all failed, so another fix is unlikely to work. Do not "
                          "write more code: reply now with your final answer to the task from "
                          "what the outputs showed, or say what went wrong.")
    assert len(server.requests) == 4


def test_code_that_fails_again_after_the_model_was_asked_for_its_answer_ends_the_task(
        server, make_session):
    """Qwen2.5-Coder-1.5B, asked for its answer after three failed blocks, wrote a fourth fix
    (real transcripts: questions of a benchmark of tables it did not write, wrong each time
    it went on, until `--max-turns`); when that fails too, the task stops. A block that
    works after the request lets the task go on."""
    (make_session.work / "people.csv").write_text("name,age\nAda,30\nBo,40\n")
    load = "rows = [line.strip().split(',') for line in open('people.csv')]\n"
    fixes = [load + f"print(sum(float(r[0]) for r in rows[{start}:]))" for start in (0, 1, 2)]
    fixes.append(load + "print(sum(int(r[0]) for r in rows[1:]))")
    server.script([*map(py, fixes), "unused"])
    events = run(make_session(server, tools="off"), "What is the sum of the first column of people.csv?")
    assert [b["status"] for b in of(events, "block.finished")] == ["error"] * 4
    assert finished(events) == {"exit_code": exits.LOOP, "reason": "failing"}
    assert of(events, "notice")[-1]["text"] == (
        "Stopped: block 4 failed too, after the model was asked for its answer because blocks "
        "kept failing (failing-streak).")
    assert len(server.requests) == 4
    works = [*map(py, fixes[:3]), py(load + "print(sum(float(r[1]) for r in rows[1:]))"),
             py("print(undefined_name)"), "The sum of the ages is 70."]
    server.script(works)
    events = run(make_session(server, tools="off"), "What is the sum of the first column of people.csv?")
    assert finished(events) == {"exit_code": 0, "reason": "done"}


def test_other_code_that_fails_after_the_loop_guard_asked_for_the_answer_ends_the_task(
        server, make_session):
    """Qwen2.5-Coder-1.5B (a real transcript of a benchmark question on a table it did not
    write): the same fit failed three times on missing values, the loop guard asked for its
    answer, and it wrote another fit that failed the same way, then was asked for its answer
    a second time (failing-streak) and wrote a sixth. Asked once, a further failure ends the
    task, as after failing-streak's request; a block that works lets it go on."""
    (make_session.work / "people.csv").write_text("name,age\nAda,30\nBo,40\n")
    load = "rows = [line.strip().split(',') for line in open('people.csv')]\n"
    same = py(load + "print(sum(float(r[0]) for r in rows))")
    other = py(load + "print(sum(float(r[0]) for r in rows[1:]))")
    server.script([same, same, same, other, "unused"])
    events = run(make_session(server, tools="off"), "What is the sum of the first column of people.csv?")
    assert [b["status"] for b in of(events, "block.finished")] == ["error"] * 4
    assert finished(events) == {"exit_code": exits.LOOP, "reason": "failing"}
    assert [n["check"] for n in of(events, "notice") if n.get("check")] == []  # not asked twice
    assert of(events, "notice")[-1]["text"] == (
        "Stopped: block 4 failed too, after the model was asked for its answer because blocks "
        "kept failing (loop guard).")
    assert server.requests[3]["messages"][-1]["content"].startswith("You have run the same code 3")
    assert len(server.requests) == 4
    works = py(load + "print(sum(float(r[1]) for r in rows[1:]))")
    server.script([same, same, same, works, "The sum of the ages is 70."])
    events = run(make_session(server, tools="off"), "What is the sum of the first column of people.csv?")
    assert finished(events) == {"exit_code": 0, "reason": "done"}


def test_an_answer_stating_a_number_no_output_showed_is_asked_to_print_it_once(
        server, make_session):
    """Qwen2.5-Coder-1.5B (a real transcript): its code printed nothing and it answered "-10"
    (the value was -24)."""
    (make_session.work / "matrix.csv").write_text("2,1\n1,3\n")
    silent = ("import csv\nwith open('matrix.csv') as f:\n"
              "    m = [[float(x) for x in row] for row in csv.reader(f)]\n")
    made_up = "The determinant of the matrix is \\(-10\\)."
    server.script([py(silent), made_up, py("print(m[0][0] * m[1][1] - m[0][1] * m[1][0])"),
                   "The determinant is 5.0.", "unused"])
    events = run(make_session(server, tools="off"), "What is the determinant of matrix.csv?")
    assert [m["final"] for m in of(events, "message")] == [False, False, False, True]
    assert [n["text"] for n in of(events, "notice") if "no output showed" in n["text"]] == [
        "The answer states -10, which no output showed; asking the model to compute it with code."]
    third = server.requests[2]["messages"]
    assert third[-1]["content"].endswith(  # the report it follows, then the request
        "\n\nYour answer states -10, which no output of this task shows. Reply with a ```python "
        "block of python code that computes and prints the values the task asks for (the session "
        "keeps its variables); then answer from its output.")
    assert made_up not in [m.get("content") for m in third]  # the answer it retracts
    assert "5.0" in server.requests[3]["messages"][-1]["content"] and len(server.requests) == 4


def test_an_answer_whose_numbers_an_output_showed_is_taken(server, make_session):
    server.script([py("print(1706)"), "The grand total is 1,706.", "unused"])
    events = run(make_session(server, tools="off"), "What is the grand total of 1700 and 6?")
    assert [m["final"] for m in of(events, "message")] == [False, True]


def test_files_named_only_in_interps_notes_are_not_described(server, make_session):
    (make_session.work / "a.txt").write_text("one\n")
    session = make_session(server, mentions=True, tools="off")
    session.tell("The user rewound the working folder: a.txt went back.")
    events = run(session, "what now")
    assert "File: " not in server.requests[0]["messages"][-1]["content"]
    assert notices_of(events) == [] and len(server.requests) == 1


def notices_of(events):
    return [e["text"] for e in of(events, "notice")]


def run_task_text(session, server, task):
    run(session, task)
    return server.requests[-1]["messages"][-1]["content"]


# -- figures ------------------------------------------------------------------------------------

CHART = '''\
import matplotlib.pyplot as plt
plt.bar(["north", "south", "east", "west"], [12, 7, 9, 4], color="tab:blue")
plt.title("Sales by region")
'''


def test_bar_chart_is_a_valid_png_and_the_model_is_told_its_path(server, make_session):
    server.script([py(CHART), "Here is the chart."])
    session = with_python(make_session, server)
    events = run(session, "plot sales by region")

    displays = of(events, "block.display")
    assert len(displays) == 1
    shown = displays[0]
    assert shown["kind"] == "image" and shown["index"] == 1
    path = shown["path"]
    assert Path(path).parent == make_session.work / "interp-output"
    assert shown["text"] == f"[figure saved: {path}]"
    assert file_png_size(path) == (640, 480)  # matplotlib's default 6.4 x 4.8 in at 100 dpi
    assert shown["data"]["width"] == 640 and shown["data"]["height"] == 480
    types = [e.type for e in events if getattr(e, "index", None) == 1]
    assert types.index("block.display") < types.index("block.finished")
    # the figure is reported once, as a display, not again as a created file
    assert all("figure" not in name for f in of(events, "block.files") for name in f["created"])

    report = server.requests[1]["messages"][-1]
    assert isinstance(report["content"], str)  # not a vision model: the path and what it plots
    assert f"[figure saved: {path}]" in report["content"]
    assert (f"What {path} shows:\n- bar chart titled 'Sales by region'\n"
            f"  - 4 bars: north 12, south 7, east 9, west 4") in report["content"]
    assert all_image_urls(server.requests[1]) == []


def test_figure_goes_to_a_vision_model_as_an_image_part(server, make_session, tmp_path):
    store = ConversationStore(tmp_path / "sessions")
    log = store.create({"model": "openai/gpt-4o"})
    server.script([py(CHART), "A bar chart with four bars.", "Still fine."])
    session = with_python(make_session, server, model="gpt-4o", log=log)
    events = run(session, "plot sales by region")
    path = of(events, "block.display")[0]["path"]

    report = server.requests[1]["messages"][-1]
    assert report["role"] == "user"
    assert f"[figure saved: {path}]" in report["content"][0]["text"]
    assert "shows:" not in report["content"][0]["text"]  # it sees the image instead
    urls = image_urls(report)
    assert len(urls) == 1 and urls[0].startswith("data:image/png;base64,")
    assert base64.b64decode(urls[0].split(",", 1)[1]) == Path(path).read_bytes()

    # saved sessions keep a reference, not the image
    saved = log.path.read_text()
    assert "base64" not in saved and len(saved) < 20_000
    assert store.load(log.id)[-2].images == (path,)

    # later requests rebuild it from the file; a deleted file falls back to a note
    os.remove(path)
    run(session, "and now?")
    last = server.requests[2]["messages"]
    assert all_image_urls(server.requests[2]) == []
    assert any(f"(image omitted: {path} no longer exists)" in as_text(m) for m in last)


def test_tool_call_figures_follow_the_tool_results_in_a_user_message(server, make_session):
    call = {"name": "execute", "arguments": {"language": "python", "code": CHART}}
    server.script([Reply(tool_calls=[call]), "Chart done."])
    session = with_python(make_session, server, model="gpt-4o")
    events = run(session, "plot it")
    path = of(events, "block.display")[0]["path"]

    messages = server.requests[1]["messages"]
    tool = next(m for m in messages if m["role"] == "tool")
    assert isinstance(tool["content"], str) and f"[figure saved: {path}]" in tool["content"]
    after = messages[messages.index(tool) + 1]
    assert after["role"] == "user" and after is messages[-1]
    assert len(image_urls(after)) == 1 and path in as_text(after)


def test_at_most_four_images_per_request_and_large_ones_are_named(server, make_session):
    code = ("import matplotlib.pyplot as plt\n"
            "for i in range(6):\n    plt.figure()\n    plt.plot([0, i])\n")
    server.script([py(code), "Six figures."])
    session = with_python(make_session, server, model="gpt-4o")
    events = run(session, "six plots")
    paths = [d["path"] for d in of(events, "block.display")]
    assert len(paths) == 6
    report = server.requests[1]["messages"][-1]
    assert len(image_urls(report)) == MAX_IMAGES
    assert "(2 more images omitted" in as_text(report)
    assert all(p in report["content"][0]["text"] for p in paths)  # every path still named

    big = make_session.work / "big.png"
    with open(big, "wb") as handle:
        handle.write(PNG)
        handle.truncate(6 * 1024 * 1024)
    parts = image_parts([str(big), paths[0]])
    assert parts[0] == {"type": "text", "text": f"(image omitted: {big} is larger than 5 MB)"}
    assert [p["type"] for p in parts[1:]] == ["text", "image_url"]


def test_tables_reach_the_model_as_text(server, make_session):
    code = "import pandas as pd\npd.DataFrame({'city': ['Oslo', 'Lima'], 'temp': [3.5, 19.0]})"
    server.script([py(code), "Two cities."])
    session = with_python(make_session, server)
    events = run(session, "show a table")
    table = of(events, "block.display")
    assert [d["kind"] for d in table] == ["table"]
    assert table[0]["data"]["columns"] == ["city", "temp"]
    report = server.requests[1]["messages"][-1]["content"]
    assert "Oslo" in report and "[DataFrame: 2 rows x 2 columns]" in report


@pytest.mark.skipif(not Path("/usr/bin/python3").exists(), reason="needs a system python3")
def test_missing_data_package_gets_an_install_hint(server, make_session, monkeypatch):
    monkeypatch.setenv("PIP_NO_INDEX", "1")  # the install interp proposes finds nothing here
    probe = os.popen("/usr/bin/python3 -c 'import pandas' 2>&1").read()
    if "No module named 'pandas'" not in probe:
        pytest.skip("the system python3 has pandas")
    server.script([py("import pandas as pd"), "No pandas."])
    runner = RunnerConfig(cwd=str(make_session.work), python="/usr/bin/python3")
    run(make_session(server, runner=runner), "load with pandas")
    report = server.requests[1]["messages"][-1]["content"]
    assert "ModuleNotFoundError: No module named 'pandas'" in report
    assert "interp[data]" not in report  # that would install into interp's Python, not this one
    assert ("Hint: pandas is not installed in the Python that runs the blocks (/usr/bin/python3);"
            " install it with `/usr/bin/python3 -m pip install pandas`") in report


def test_result_text_with_fences_hint_and_files_survives_export():
    from languages import CapturedOutput, Display, Result

    from interp.core import blocks
    from interp.core.replies.report import report_messages

    output = "```\nnested fence\n```\nModuleNotFoundError: No module named 'openpyxl'\n"
    result = Result(status="error", output=CapturedOutput(output, "", 0, 0, len(output), None),
                    error="ModuleNotFoundError: No module named 'openpyxl'",
                    displays=(Display("image", "[figure saved: /tmp/f/a.png]", "/tmp/f/a.png"),))
    record = blocks.ran(1, "python", "x", result, python="/x/py",
                        files=blocks.FileChanges(("a.csv",), text="Files created: a.csv (3 B)"))
    messages = [Entry({"role": "user", "content": "t"}),
                Entry({"role": "assistant", "content": py("x")}), *report_messages([record])]
    text = messages[-1].content
    assert text.startswith("[Block 1, python]\nOutput:\n````\n```\nnested fence\n```\n")
    assert "[figure saved: /tmp/f/a.png]\n````\nHint: openpyxl is not installed" in text
    markdown = export_markdown(messages)
    assert "```\nnested fence\n```\nModuleNotFoundError" in markdown
    assert "![figure](/tmp/f/a.png)" in markdown and "*Files created: a.csv (3 B)*" in markdown
    assert "*Hint: openpyxl is not installed in the Python that runs the blocks (/x/py)" in markdown
