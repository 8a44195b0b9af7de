"""Block numbers, full-output files and per-directory resume, through the real `interp`.

One session-wide block number is the panel title, the reply's marker, --json `index`, the
traceback and figure names, the session file's records and exports, and it continues after
--resume. Long outputs are spooled next to the saved session and stay there. Bare --resume and
`interp sessions` are per directory. Slow runs are scenarios run concurrently once per module
(as in test_cli.py); timeouts are hang guards only, never assertions.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import Scenarios, interp_cmd, model_args, run_interp

scenario = Scenarios()


@pytest.fixture(scope="module")
def outcome(request, tmp_path_factory):
    """outcome(name) -> the results of scenario `name` (its exception, if it raised)."""
    return scenario.play(request, tmp_path_factory)


def fenced(language: str, code: str) -> str:
    return f"```{language}\n{code}\n```"


def events_of(proc) -> list[dict]:
    return [json.loads(line) for line in proc.stdout.splitlines()]


def run_in(cwd: Path, args: list[str], env: dict) -> subprocess.CompletedProcess:
    """The real interp in another directory than the scenario's own."""
    cwd.mkdir(parents=True, exist_ok=True)
    return subprocess.run(interp_cmd() + args, input="", capture_output=True, text=True,
                          env=env["env"], cwd=cwd, timeout=120)


def saved_records(env: dict) -> list[dict]:
    """The block records in the (only) session file."""
    (path,) = (env["data"] / "interp" / "sessions").glob("*.jsonl")
    records = []
    for line in path.read_text().splitlines():
        message = json.loads(line).get("message") or {}
        records += message.get("_blocks") or []
    return records


def contents(request: dict) -> list[str]:
    return [m.get("content") or "" for m in request["messages"]]


# -- B: one block number everywhere ------------------------------------------------------------
FIGURE = "import matplotlib.pyplot as plt\nplt.plot([1, 4, 9])\nplt.show()\n1 / 0"


@scenario(runs=4)
def numbers(server, env):
    env["env"] = dict(env["env"], INTERP_PYTHON=sys.executable)  # it has matplotlib
    args = ["-y", *model_args(server)]
    server.script([
        "Two blocks.\n" + fenced("python", "print('one')") + "\n" + fenced("bash", "echo two"),
        "A figure, then an error.\n" + fenced("python", FIGURE),
        "Done.",
        "Once more.\n" + fenced("python", "print('four')") + "\nThis will display four.",
        "Done again.",
    ])
    first = run_interp([*args, "--json", "-e", "first task"], env)
    second = run_interp([*args, "--resume", "-e", "second task"], env)
    md = run_interp(["export", "latest", "--format", "md", "-o", "-"], env)
    nb = run_interp(["export", "latest", "--format", "ipynb", "-o", "-"], env)
    return {"first": first, "second": second, "md": md, "nb": nb, "records": saved_records(env),
            "figures": sorted(p.name for p in (env["cwd"] / "interp-output").glob("*.png"))}


def test_numbers(outcome):
    got = outcome("numbers")
    for name in ("first", "second", "md", "nb"):
        assert got[name].returncode == 0, (name, got[name].stderr)
    events = events_of(got["first"])
    proposed = [(e["index"], e["language"]) for e in events if e["type"] == "block.proposed"]
    assert proposed == [(1, "python"), (2, "shell"), (3, "python")]
    messages = [e for e in events if e["type"] == "message"]
    assert messages[0]["blocks"] == [{"index": 1, "language": "python"},
                                     {"index": 2, "language": "shell"}]
    assert messages[1]["blocks"] == [{"index": 3, "language": "python"}] and not messages[2]["blocks"]
    output = "".join(e["text"] for e in events if e["type"] == "block.output" and e["index"] == 3)
    assert 'File "<block 3>", line 4' in output  # the traceback names the block
    assert got["figures"] == ["figure-3-1.png"]
    display = next(e for e in events if e["type"] == "block.display")
    assert display["index"] == 3 and display["path"].endswith("/figure-3-1.png")
    # the model's reports use the same numbers
    assert "[Block 3, python]" in contents(got["requests"][2])[-1]

    # resumed: numbering goes on; panel title and marker agree, text after a block starts
    # its own line
    shown = got["second"].stderr
    assert "python block 4" in shown and "▶ python block 4, shown below" in shown
    assert re.search(r"shown below\s*\n\s*\n?This will display four\.", shown)
    assert "block 1 " not in shown.split("Resumed")[-1]
    assert [(r["index"], r["language"], r["status"]) for r in got["records"]] == [
        (1, "python", "ok"), (2, "shell", "ok"), (3, "python", "error"), (4, "python", "ok")]

    md = got["md"].stdout
    for marker in ("▶ python block 1", "▶ shell block 2", "▶ python block 3", "▶ python block 4"):
        assert marker in md
    assert "figure-3-1.png" in md and "<block 3>" in md
    cells = [c for c in json.loads(got["nb"].stdout)["cells"] if c["cell_type"] == "code"]
    assert [c["execution_count"] for c in cells] == [1, 2, 3, 4]
    assert [c["metadata"]["interp"]["block"] for c in cells] == [1, 2, 3, 4]


# -- A: exports read the records, not the model's text -------------------------------------
@scenario(runs=2)
def reworded(server, env):
    server.script([fenced("python", "print('kept')") + "\n" + fenced("shell", "(exit 3)"), "Ok."])
    proc = run_interp(["-y", "-e", "go", *model_args(server)], env)
    # reword everything the model was told, as a future version of interp might
    (path,) = (env["data"] / "interp" / "sessions").glob("*.jsonl")
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for line in lines:
        if (line.get("message") or {}).get("_output"):
            line["message"]["content"] = "Résultats : tout s'est passé comme prévu."
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return {"proc": proc, "md": run_interp(["export", "latest", "-o", "-"], env)}


def test_reworded(outcome):
    got = outcome("reworded")
    assert got["proc"].returncode == 0, got["proc"].stderr
    md = got["md"].stdout
    assert "Output:\n\n```\nkept\n```\n\n*Result: ok.*" in md
    assert "*Result: exit status 3.*" in md and "Résultats" not in md


# -- C: full-output files live with the saved session -------------------------------------
LINES = 5000


def cat_the_spool(request: dict) -> str:
    """The model reads the file it was told about (the path is only known at run time)."""
    found = re.search(r"full output in (\S+) \.\.\.", "\n".join(contents(request)))
    return "Reading it.\n" + fenced("shell", f"wc -l < {found.group(1)}")


@scenario(runs=2)
def spool(server, env):
    server.script([fenced("python", f"for i in range({LINES}): print('row', i)"), "Long.",
                   cat_the_spool, "Read it."])
    first = run_interp(["-y", "--json", "-e", "print a lot", *model_args(server)], env)
    second = run_interp(["-y", "--json", "--resume", "-e", "read the whole output",
                         *model_args(server)], env)
    return {"first": first, "second": second,
            "md": run_interp(["export", "latest", "-o", "-"], env)}


def test_spool(outcome):
    got = outcome("spool")
    assert got["first"].returncode == 0 and got["second"].returncode == 0, got["first"].stderr
    first = events_of(got["first"])
    sid = next(e for e in first if e["type"] == "session.started")["session_id"]
    done = next(e for e in first if e["type"] == "block.finished")
    sessions = got["env"]["data"] / "interp" / "sessions"
    assert done["truncated"] and done["spool_path"] == str(sessions / sid / "block-1-output.txt")
    spool = Path(done["spool_path"])
    assert spool.read_text().count("\n") == LINES  # still there after interp exited
    told = contents(got["requests"][1])[-1]
    assert f"full output in {spool}" in told
    out = "".join(e["text"] for e in events_of(got["second"]) if e["type"] == "block.output")
    assert out.strip() == str(LINES)  # the resumed conversation read the same file
    assert str(spool) in got["md"].stdout


# -- E: resume is per directory ------------------------------------------------------------
@scenario(runs=7)
def per_directory(server, env):
    args = ["-y", *model_args(server)]
    server.default = "ok"
    home = env["cwd"]
    here, there = home / "here", home / "there"
    runs = {"there": run_in(there, [*args, "-e", "TASK THERE"], env),
            "here": run_in(here, [*args, "-e", "TASK HERE"], env)}
    runs["bare"] = run_in(there, [*args, "--resume", "-e", "BARE THERE"], env)
    bare_request = server.requests[-1]
    here_id = re.search(r"\d{8}-\d{6}-[0-9a-f]{6}",
                        run_in(here, ["sessions"], env).stdout).group(0)
    runs["elsewhere"] = run_in(there, [*args, "--resume", here_id, "-e", "FROM THERE"], env)
    elsewhere_request = server.requests[-1]
    runs["nothing"] = run_in(home / "empty", [*args, "--resume", "-e", "x"], env)
    return {"runs": runs, "bare_request": bare_request, "here_id": here_id,
            "elsewhere_request": elsewhere_request, "here": here, "there": there,
            "list_there": run_in(there, ["sessions"], env),
            "list_all": run_in(there, ["sessions", "--all"], env),
            "list_empty": run_in(home / "empty", ["sessions"], env)}


def test_per_directory(outcome):
    got = outcome("per_directory")
    runs = got["runs"]
    for name in ("there", "here", "bare", "elsewhere"):
        assert runs[name].returncode == 0, (name, runs[name].stderr)
    bare = contents(got["bare_request"])
    assert "TASK THERE" in bare and "TASK HERE" not in " ".join(bare)
    assert bare[-1].startswith("[interp: this conversation was resumed")
    assert bare[-1].endswith("\n\nBARE THERE")
    assert "not restored" in bare[-1] and str(got["there"]) in bare[-1]

    # resuming a conversation from another directory: a warning, and the model is told
    warning = runs["elsewhere"].stderr
    assert f"interp: warning: conversation {got['here_id']} was started in {got['here']}" in warning
    told = contents(got["elsewhere_request"])
    assert "TASK HERE" in told and "TASK THERE" not in " ".join(told)
    assert f"The conversation was started in {got['here']}" in told[-1]
    assert f"the working directory is now {got['there']}" in told[-1]
    assert "warning" not in runs["bare"].stderr

    assert runs["nothing"].returncode == 2
    assert "no saved conversation was started in this directory" in runs["nothing"].stderr
    assert "interp sessions --all" in runs["nothing"].stderr

    listing = got["list_there"].stdout.splitlines()
    assert listing[0].split() == ["ID", "STARTED", "MSGS", "MODEL", "DIRECTORY", "FIRST", "TASK"]
    assert len(listing) == 2 and "TASK THERE" in listing[1] and "/there" in listing[1]
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d", listing[1])
    everything = got["list_all"].stdout
    assert len(everything.splitlines()) == 3 and "TASK HERE" in everything
    assert "/here" in everything and "TASK THERE" in everything
    assert "No saved conversations started in" in got["list_empty"].stdout
    assert "--all" in got["list_empty"].stdout


# -- terminal transcripts: a ```console block runs its commands after approval -------------------
def test_a_console_block_is_asked_about_and_runs_its_commands(spawn, fake_server):
    session = "$ echo made > made.txt\n$ cat made.txt\nmade"
    fake_server.script([f"I'll create it:\n\n```console\n{session}\n```", "Created made.txt."])
    term = spawn()
    term.task("create made.txt")
    start = term.pos
    assert term.question() == "shell"
    shown = term.since(start)
    assert "$ echo made > made.txt" in shown and "▶ shell block 1" in shown
    term.send("y")
    term.expect(r"^made$")
    term.expect("Created made.txt.")
    told = fake_server.requests[1]["messages"][-1]["content"]
    assert "[Block 1, shell]" in told and "pasted terminal session" in told
    assert term.exit_status() == 0
