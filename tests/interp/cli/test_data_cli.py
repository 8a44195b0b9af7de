"""Data work through the real `interp` executable against the fake OpenAI server.

--file previews, block.files and block.display in --json, figures in the output folder, image
parts for a vision model, `interp export` (md, ipynb validated with nbformat, json), and /file and
/export in a pseudo-terminal. Slow runs are scenarios run concurrently once per module (as in
test_cli.py); timeouts are hang guards only, never assertions.
"""

from __future__ import annotations
from png_kit import file_png_size

import json
import sys
from pathlib import Path

import pytest

from helpers import Scenarios, model_args, run_interp

from interp.cli.build import runner_config
from interp.config.settings import ConfigError, load_settings

CHART = ("import matplotlib.pyplot as plt\n"
         "plt.bar(['q1', 'q2', 'q3'], [3, 5, 2])\n"
         "print('chart ready')")


def py(code: str) -> str:
    return f"```python\n{code}\n```"


def events_of(proc) -> list[dict]:
    return [json.loads(line) for line in proc.stdout.splitlines()]




def content_text(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if p.get("type") == "text")
    return content or ""


def image_parts(request: dict) -> list[dict]:
    return [p for m in request["messages"] if isinstance(m.get("content"), list)
            for p in m["content"] if p.get("type") == "image_url"]


def with_venv_python(env: dict) -> dict:
    """Blocks run with this interpreter (it has matplotlib), via INTERP_PYTHON."""
    env["env"] = dict(env["env"], INTERP_PYTHON=sys.executable)
    return env


# -- scenarios -----------------------------------------------------------------------------------

scenario = Scenarios()


@pytest.fixture(scope="module")
def outcome(request, tmp_path_factory):
    """outcome(name) -> the results of scenario `name` (its exception, if it raised)."""
    return scenario.play(request, tmp_path_factory)


BIG = 50 * 1024 * 1024


@scenario
def file_previews(server, env):
    work = env["cwd"]
    (work / "sales.csv").write_text("region,amount,date\nnorth,12.5,2025-01-02\n"
                                    "\"south, east\",7,2025-01-03\n", encoding="utf-8")
    (work / "config.json").write_text(json.dumps({"name": "demo", "items": [1, 2, 3],
                                                  "nested": {"a": True}}), encoding="utf-8")
    (work / "blob.bin").write_bytes(bytes(range(256)) * 64)
    with open(work / "big.csv", "w", encoding="utf-8") as handle:
        handle.write("id,value,label\n")
        row = "".join(f"{i},{i * 3},label-{i}\n" for i in range(1000))
        while handle.tell() < BIG:
            handle.write(row)
    server.script(["Four files."])
    args = ["-y", "-e", "summarise the attached files", *model_args(server)]
    for name in ("sales.csv", "config.json", "blob.bin", "big.csv"):
        args += ["--file", name]
    return {"proc": run_interp(args, env), "big_size": (work / "big.csv").stat().st_size}


def test_file_previews(outcome):
    got = outcome("file_previews")
    proc, work = got["proc"], got["env"]["cwd"]
    assert proc.returncode == 0, proc.stderr
    assert got["big_size"] >= BIG
    assert f"Attached {work / 'sales.csv'} (CSV (text)" in proc.stderr
    task = got["requests"][0]["messages"][-1]
    assert task["role"] == "user" and isinstance(task["content"], str)
    text = task["content"]
    assert text.startswith("summarise the attached files\n\nAttached files:\n\n")
    assert len(text) < 12_000  # bounded, although one file is 50 MB
    parts = text.split("\n\nFile: ")[1:]
    assert len(parts) == 4
    csv_part, json_part, bin_part, big_part = parts
    assert f"{work / 'sales.csv'}" in csv_part and "Type: CSV" in csv_part
    assert "Columns: 3 (comma-delimited)" in csv_part and "Rows: 3" in csv_part
    assert '"south, east",7,2025-01-03' in csv_part
    assert json_part.startswith(f"{work / 'config.json'}") and "Type: JSON" in json_part
    assert "Structure: object with 3 keys" in json_part and '"nested"' in json_part
    assert "Type: binary file" in bin_part and "content not shown" in bin_part
    assert "Preview" not in bin_part and "\x00" not in bin_part
    assert "Size: 50 MiB" in big_part and "Rows: not counted (large file)" in big_part
    assert "0,0,label-0" in big_part and len(big_part) < 4_000


def test_missing_file_is_one_line_and_exit_2(fake_server, interp_env):
    proc = run_interp(["-y", "-e", "read it", "--file", "nope.csv", *model_args(fake_server)],
                      interp_env)
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"interp: --file {interp_env['cwd'] / 'nope.csv'}: no such file"
    assert fake_server.requests == []


@scenario
def data_in_the_folder(server, env):
    """interp run in the home folder: its own data (sessions, checkpoints) and cache (the
    Python driver) lie inside."""
    env = {**env, "env": {**env["env"], "XDG_DATA_HOME": str(env["cwd"] / ".local" / "share"),
                          "XDG_CACHE_HOME": str(env["cwd"] / ".cache")}}
    server.script([py("open('a.txt', 'w').write('a')"), py("open('b.txt', 'w').write('b')"),
                   "Wrote a.txt and b.txt."])
    return {"proc": run_interp(["-y", "--json", "-e", "write a.txt and b.txt",
                                *model_args(server)], env)}


def test_data_in_the_folder(outcome):
    """Its files are not reported as changes the code made."""
    got = outcome("data_in_the_folder")
    assert got["proc"].returncode == 0, got["proc"].stderr
    files = [e for e in events_of(got["proc"]) if e["type"] == "block.files"]
    assert [(e["created"], e["modified"]) for e in files] == [(["a.txt"], []), (["b.txt"], [])]
    assert list((got["env"]["cwd"] / ".local" / "share" / "interp" / "sessions").iterdir())
    assert list((got["env"]["cwd"] / ".cache" / "interp").iterdir())


@scenario
def created_files(server, env):
    server.script([py("with open('out.txt', 'w') as f:\n    f.write('hello\\n' * 3)"),
                   "Wrote out.txt."])
    return {"proc": run_interp(["-y", "--json", "-e", "write out.txt", *model_args(server)], env)}


def test_created_files(outcome):
    got = outcome("created_files")
    proc = got["proc"]
    assert proc.returncode == 0, proc.stderr
    events = events_of(proc)
    files = [e for e in events if e["type"] == "block.files"]
    assert files == [{"type": "block.files", "index": 1, "created": ["out.txt"], "modified": [],
                      "deleted": [], "text": "Files created: out.txt (18 B)"}]
    types = [e["type"] for e in events]
    assert types.index("block.files") < types.index("block.finished")
    report = got["requests"][1]["messages"][-1]["content"]
    assert "Files created: out.txt (18 B)" in report
    assert (got["env"]["cwd"] / "out.txt").read_text() == "hello\n" * 3


@scenario
def chart_and_exports(server, env):
    with_venv_python(env)
    server.script(["Plotting.\n" + py(CHART), "The chart is saved."])
    run = run_interp(["-y", "--json", "--output-dir", "charts", "-e", "plot quarterly sales",
                      *model_args(server)], env)
    sid = next(e for e in events_of(run) if e["type"] == "session.started")["session_id"]
    exports = {
        "ipynb": run_interp(["export", "latest", "--format", "ipynb", "-o", "x.ipynb"], env),
        "md": run_interp(["export", sid[:-2], "--format", "md", "-o", "-"], env),
        "json": run_interp(["export", "latest", "--format", "json"], env),
        "by_suffix": run_interp(["export", sid, "-o", "copy.md"], env),
        "unknown": run_interp(["export", "nope"], env),
        "bad_format": run_interp(["export", "latest", "--format", "docx"], env),
    }
    return {"run": run, "sid": sid, "exports": exports}


def test_chart_and_exports(outcome):
    import nbformat

    got = outcome("chart_and_exports")
    run, work, sid = got["run"], got["env"]["cwd"], got["sid"]
    assert run.returncode == 0, run.stderr
    displays = [e for e in events_of(run) if e["type"] == "block.display"]
    assert len(displays) == 1 and displays[0]["kind"] == "image"
    path = Path(displays[0]["path"])
    assert path.parent == work / "charts"  # --output-dir, relative to the working directory
    assert file_png_size(path) == (640, 480)
    report = got["requests"][1]["messages"][-1]
    assert isinstance(report["content"], str)  # fake-model has no vision: the path only
    assert f"[figure saved: {path}]" in report["content"] and "chart ready" in report["content"]
    assert image_parts(got["requests"][1]) == []

    exports = got["exports"]
    for name in ("ipynb", "md", "json", "by_suffix"):
        assert exports[name].returncode == 0, (name, exports[name].stderr)

    notebook = nbformat.read(str(work / "x.ipynb"), as_version=4)
    nbformat.validate(notebook)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert len(code) == 1 and code[0].source == CHART
    kinds = [o.output_type for o in code[0].outputs]
    assert kinds == ["stream", "display_data"]
    assert "chart ready" in code[0].outputs[0].text
    assert code[0].outputs[1].data["image/png"]  # the figure, embedded
    assert any("plot quarterly sales" in c.source for c in notebook.cells)

    md = exports["md"].stdout
    assert md.startswith("# plot quarterly sales") and "```python\n" + CHART in md
    assert f"![figure]({path})" in md and "*Result: ok.*" in md

    saved = json.loads((work / f"interp-{sid}.json").read_text())
    assert [m["role"] for m in saved][:2] == ["system", "user"]
    assert saved[-1] == {"role": "assistant", "content": "The chart is saved."}
    assert (work / "copy.md").read_text() == md

    assert exports["unknown"].returncode == 2 and "nope" in exports["unknown"].stderr
    assert exports["bad_format"].returncode == 2 and "docx" in exports["bad_format"].stderr


@scenario
def vision_model(server, env):
    with_venv_python(env)
    server.script([py(CHART), "Three bars."])
    proc = run_interp(["-y", "--json", "-e", "plot it", *model_args(server, "gpt-4o")], env)
    sessions = list((env["data"] / "interp" / "sessions").glob("*.jsonl"))
    return {"proc": proc, "saved": sessions[0].read_text() if sessions else ""}


def test_vision_model(outcome):
    got = outcome("vision_model")
    assert got["proc"].returncode == 0, got["proc"].stderr
    path = next(e["path"] for e in events_of(got["proc"]) if e["type"] == "block.display")
    parts = image_parts(got["requests"][1])
    assert len(parts) == 1 and parts[0]["image_url"]["url"].startswith("data:image/png;base64,")
    assert f"[figure saved: {path}]" in content_text(got["requests"][1]["messages"][-1])
    assert image_parts(got["requests"][0]) == []
    assert f'"_images": ["{path}"]' in got["saved"] and "base64" not in got["saved"]


# -- settings ------------------------------------------------------------------------------------

def test_output_dir_setting(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('output_dir = "from-config"\n')
    assert load_settings({}, environ={}, config_path=config).output_dir == "from-config"
    settings = load_settings({}, environ={"INTERP_OUTPUT_DIR": "from-env"}, config_path=config)
    assert settings.output_dir == "from-env" and not settings.warnings
    settings = load_settings({"output_dir": "from-cli"}, environ={"INTERP_OUTPUT_DIR": "x"},
                             config_path=config)
    assert runner_config(settings).output_dir == "from-cli"
    assert load_settings({}, environ={}, config_path=tmp_path / "none.toml").output_dir is None


def test_max_output_setting_makes_the_runners_keep_as_much(tmp_path):
    """max_output (CHARS the model is given of a block's output): the runners keep at least
    that much of it in memory, half from the start and half from the end."""
    none = tmp_path / "none.toml"
    settings = load_settings({}, environ={}, config_path=none)
    assert settings.max_output is None and runner_config(settings).head_chars == 8000
    settings = load_settings({}, environ={"INTERP_MAX_OUTPUT": "50001"}, config_path=none)
    assert settings.max_output == 50001
    assert (runner_config(settings).head_chars, runner_config(settings).tail_chars) == (25001,
                                                                                       25001)
    with pytest.raises(ConfigError, match="INTERP_MAX_OUTPUT: must be at least 200, got 100"):
        load_settings({}, environ={"INTERP_MAX_OUTPUT": "100"}, config_path=none)


# -- interactive: /file and /export --------------------------------------------------------------

def test_file_and_export_commands(spawn, fake_server, interp_env):
    import nbformat

    work = interp_env["cwd"]
    (work / "data.csv").write_text("a,b\n1,2\n3,4\n")
    fake_server.script([py("print(sum([1, 2, 3]))"), "The sum is 6."])
    term = spawn("-y")
    term.task("/file missing.csv")
    term.expect(r"Cannot attach\s+[\S\r\n]*missing\.csv:\s+no\s+such\s+file")  # the path may wrap
    term.task("/file data.csv")
    term.expect(r"Attached\s+[\S\r\n]*data\.csv\s+\(CSV")
    term.task("add things up")
    term.expect("The sum is 6.")
    task = fake_server.requests[0]["messages"][-1]["content"]
    assert task.startswith("add things up\n\nAttached files:\n\nFile: ")
    assert "Columns: 2" in task and "3,4" in task
    term.task("/export out.ipynb")
    term.expect(r"Exported the conversation \(notebook\) to out\.ipynb")
    term.task("/export")
    term.expect(r"Exported the conversation \(markdown\) to\s+interp-\S+\.md")
    assert term.exit_status() == 0
    notebook = nbformat.read(str(work / "out.ipynb"), as_version=4)
    nbformat.validate(notebook)
    assert [c.source for c in notebook.cells if c.cell_type == "code"] == ["print(sum([1, 2, 3]))"]
    exported = list(work.glob("interp-*.md"))
    assert len(exported) == 1 and "The sum is 6." in exported[0].read_text()
    assert len(fake_server.requests) == 2  # commands never reached the model
