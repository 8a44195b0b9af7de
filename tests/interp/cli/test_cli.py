"""The real `interp` executable in a subprocess, against the fake OpenAI server over HTTP.

Standard input is never a terminal here (interactive runs are tested with a pty elsewhere).
Timeouts are hang guards only, never assertions.

Every `interp` run that reaches the model imports litellm (seconds of CPU), so those runs are
written as *scenarios*: each gets its own fake server and private directories, the selected ones
run concurrently once per module, and the test of the same name makes the assertions.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import Scenarios, interp_cmd, model_args, run_interp
from fake_openai import Reply

KEY = "sk-test-123456"
JSON_TYPES = {"session.started", "model.request", "model.retry", "message", "block.proposed", "block.approved", "block.declined",
              "block.output", "block.display", "block.files", "block.finished", "turn.completed",
              "notice", "task.finished", "session.finished"}


def py(code: str) -> str:
    return f"```python\n{code}\n```"


def contents(request: dict) -> list[str]:
    return [m.get("content") or "" for m in request["messages"]]


def session_files(interp_env) -> list[Path]:
    return sorted((interp_env["data"] / "interp" / "sessions").glob("*.jsonl"))


def wait_for(predicate, what: str, guard: float = 60.0) -> None:
    """Poll until predicate() is true; the limit is a hang guard, not a timing assertion."""
    deadline = time.monotonic() + guard
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"hang guard: {what} did not happen within {guard:g} s")
        time.sleep(0.05)


# -- scenarios: slow runs, executed concurrently -------------------------------------------------

scenario = Scenarios()


@pytest.fixture(scope="module")
def outcome(request, tmp_path_factory):
    """outcome(name) -> the results of scenario `name` (its exception, if it raised)."""
    return scenario.play(request, tmp_path_factory)


# -- one-shot runs -------------------------------------------------------------------------------

@scenario
def oneshot(server, env):
    server.script([py("open('made.txt', 'w').write('x')\nprint('product', 6 * 7)"),
                   "The answer is 42."])
    return {"proc": run_interp(["-y", "-e", "compute the product", *model_args(server)], env),
            "made": (env["cwd"] / "made.txt").exists()}


def test_oneshot(outcome):
    """Answer on stdout, progress on stderr, exit 0."""
    got = outcome("oneshot")
    proc = got["proc"]
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "The answer is 42."
    assert "product 42" in proc.stderr and "print('product', 6 * 7)" in proc.stderr
    assert "The answer is 42." not in proc.stderr
    assert got["made"]  # blocks run in interp's working directory
    assert len(got["requests"]) == 2
    assert "product 42" in got["requests"][-1]["messages"][-1]["content"]
    assert "Traceback" not in proc.stderr


@scenario
def task_from_stdin(server, env):
    server.script(["Linux, probably."])
    return {"proc": run_interp(["-y", *model_args(server)], env, input="what OS is this?\n")}


def test_task_from_stdin(outcome):
    got = outcome("task_from_stdin")
    assert got["proc"].returncode == 0, got["proc"].stderr
    assert got["proc"].stdout.strip() == "Linux, probably."
    assert got["requests"][0]["messages"][-1]["content"] == "what OS is this?"


def test_no_terminal_and_no_auto_approve_runs_nothing(fake_server, interp_env):
    fake_server.script([py("open('made.txt', 'w').write('x')"), "done"])
    proc = run_interp(["-e", "make a file", *model_args(fake_server)], interp_env)
    assert proc.returncode == 2
    assert "--auto-approve" in proc.stderr
    assert fake_server.requests == []
    assert not (interp_env["cwd"] / "made.txt").exists()
    assert proc.stdout == ""


# -- exit statuses -------------------------------------------------------------------------------

@scenario
def auth_error(server, env):
    server.script([Reply(status=401)])
    return {"proc": run_interp(["-y", "-e", "hello", *model_args(server)], env)}


def test_auth_error(outcome):
    """401: one clear line, exit 1, no traceback, no key."""
    proc = outcome("auth_error")["proc"]
    assert proc.returncode == 1
    assert "Authentication failed" in proc.stderr
    assert "Traceback" not in proc.stderr and KEY not in proc.stderr + proc.stdout


@scenario
def unreachable(server, env):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    args = ["-y", "-e", "hello", "--model", "openai/fake-model", "--api-base",
            f"http://127.0.0.1:{port}/v1", "--api-key", KEY]
    return {"proc": run_interp(args, env), "json": run_interp([*args, "--json"], env)}


def test_unreachable(outcome):
    proc = outcome("unreachable")["proc"]
    assert proc.returncode == 1
    assert "Could not reach" in proc.stderr and "Traceback" not in proc.stderr
    assert "retry 1 of 5" not in proc.stderr  # announced as it is tried: once more


def test_a_refused_connection_is_retried_as_announced(outcome):
    proc = outcome("unreachable")["json"]
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    retries = [e for e in events if e["type"] == "model.retry"]
    assert [(e["attempt"], e["max_attempts"], e["reason"]) for e in retries] == [
        (1, 1, "connection")]
    assert retries[0]["text"] == "connection failed, retry 1 of 1"
    assert proc.returncode == 1


@pytest.mark.parametrize("flags, needle", [
    (["--max-turns", "abc"], "--max-turns"),
    (["--max-turns", "0"], "--max-turns"),
    (["--timeout", "soon"], "--timeout"),
    (["--no-such-flag"], "--no-such-flag"),
])
def test_bad_flag_exit_2(fake_server, interp_env, flags, needle):
    proc = run_interp(["-y", "-e", "hello", *model_args(fake_server), *flags], interp_env)
    assert proc.returncode == 2
    assert needle in proc.stderr
    assert fake_server.requests == []


def test_no_model_configured_exit_2_explains_how(interp_env):
    proc = run_interp(["-y", "-e", "hello"], interp_env)
    assert proc.returncode == 2
    assert "No model is configured" in proc.stderr
    assert "--model" in proc.stderr and "INTERP_MODEL" in proc.stderr
    assert str(interp_env["env"]["XDG_CONFIG_HOME"]) in proc.stderr  # names the config file


@scenario
def model_from_config_file(server, env):
    server.script(["from file"])
    config = Path(env["env"]["XDG_CONFIG_HOME"]) / "interp" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'model = "openai/file-model"\napi_base = "{server.api_base}"\n'
                      f'api_key = "{KEY}"\nmax_turns = 5\n')
    return {"proc": run_interp(["-y", "-e", "hello"], env)}


def test_model_from_config_file(outcome):
    got = outcome("model_from_config_file")
    assert got["proc"].returncode == 0, got["proc"].stderr
    assert got["proc"].stdout.strip() == "from file"
    assert got["requests"][-1]["model"] == "file-model"


def test_malformed_config_exit_2(fake_server, interp_env):
    config = Path(interp_env["env"]["XDG_CONFIG_HOME"]) / "interp" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('model = "gpt-4o\nmax_turns = [\n')
    proc = run_interp(["-y", "-e", "hello", *model_args(fake_server)], interp_env)
    assert proc.returncode == 2
    assert "config.toml" in proc.stderr and "invalid TOML" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert fake_server.requests == []


@scenario
def max_turns(server, env):
    server.default = py("print('again')")
    return {"proc": run_interp(["-y", "--max-turns", "2", "-e", "loop", *model_args(server)], env)}


def test_max_turns(outcome):
    """--max-turns 2 with a model that always proposes code: exit 3 after two model calls."""
    got = outcome("max_turns")
    assert got["proc"].returncode == 3
    assert len(got["requests"]) == 2
    assert "max-turns" in got["proc"].stderr


# -- JSON Lines ----------------------------------------------------------------------------------

@scenario
def json_lines(server, env):
    server.script([
        py("print('json-out')\nprint('the key is sk-test-' + '123456')")  # the key only in output
        + "\n```bash\necho shell-out >&2\n```",
        f"All done. Your key is {KEY}.",
    ])
    proc = run_interp(["-y", "--json", "-e", f"emit events, key {KEY}", *model_args(server)], env)
    files = {path: path.read_text(errors="replace") for path in env["data"].rglob("*")
             if path.is_file()}
    return {"proc": proc, "files": files, "auth": server.headers.get("Authorization")}


def test_json_lines(outcome):
    """--json: only JSON Lines on stdout, documented types, in order; the key is never shown."""
    got = outcome("json_lines")
    proc = got["proc"]
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]  # every line is JSON
    assert all(isinstance(e, dict) and e.get("type") in JSON_TYPES for e in events), events
    notices = [e for e in events[1:2] if e["type"] == "notice"]  # start-up: the Python in use
    assert len(notices) == 1 and notices[0]["text"].endswith(
        " (the Python interp runs in); python and pip in shell blocks are the same one.")
    python = notices[0]["text"].split()[4]  # interp's own: this venv's python or python3
    assert os.path.dirname(python) == os.path.dirname(sys.executable)
    types = [e["type"] for e in events]
    assert types[0] == "session.started" and types[-1] == "session.finished"
    assert types[-2] == "task.finished" and events[-2]["exit_code"] == 0
    assert events[-1]["exit_code"] == 0 and events[-1]["session_id"] == events[0]["session_id"]
    assert events[0]["resumed"] is False and events[0]["model"] == "openai/fake-model"
    assert "message.delta" not in types

    blocks = [e for e in events if e["type"].startswith("block.")]
    assert blocks and all(isinstance(e["index"], int) for e in blocks)
    assert [e["type"] for e in blocks if e["index"] == 1][:2] == ["block.proposed", "block.approved"]
    assert [e["index"] for e in blocks if e["type"] == "block.proposed"] == [1, 2]
    assert [(e["index"], e["status"]) for e in events if e["type"] == "block.finished"] == [
        (1, "ok"), (2, "ok")]
    out = {i: "".join(e["text"] for e in blocks if e["type"] == "block.output" and e["index"] == i)
           for i in (1, 2)}
    assert out[1].splitlines()[0] == "json-out" and out[2].strip() == "shell-out"
    finals = [e for e in events if e["type"] == "message"]
    assert [m["final"] for m in finals] == [False, True]
    assert finals[-1]["text"] == "All done. Your key is [REDACTED]."

    # the key was used, but is neither in --json output nor in any file under the data dir
    assert got["auth"] == f"Bearer {KEY}"
    assert KEY not in proc.stdout and "the key is [REDACTED]" in out[1]
    sessions = [text for path, text in got["files"].items() if path.suffix == ".jsonl"]
    assert len(sessions) == 1 and "[REDACTED]" in sessions[0]
    for path, text in got["files"].items():
        assert KEY not in text, path


# -- saved conversations -------------------------------------------------------------------------

@scenario(runs=2)
def resume_after_kill(server, env):
    pid_file = env["cwd"] / "block.pid"
    server.script([
        "Sleeping now.\n" + py("import os, time\nopen('block.pid', 'w').write(str(os.getpid()))\n"
                                "time.sleep(60)"),
    ])
    proc = subprocess.Popen(interp_cmd() + ["-y", "-e", "FIRST TASK: take a nap", *model_args(server)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env["env"], cwd=env["cwd"],
                            start_new_session=True)
    runner_pid = None
    try:
        wait_for(lambda: pid_file.exists() and pid_file.read_text().strip(), "the block starting")
        runner_pid = int(pid_file.read_text())
        proc.kill()  # SIGKILL: no cleanup, no final records
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
        for kill, pid in ((os.kill, runner_pid), (os.killpg, proc.pid)):
            if pid is not None:
                try:
                    kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
    before = session_files(env)
    saved_text = before[0].read_text() if before else ""
    server.script(["Continuing after the crash."])
    again = run_interp(["--resume", "-y", "-e", "SECOND TASK", *model_args(server)], env)
    return {"killed": proc.returncode, "before": before, "saved_text": saved_text,
            "again": again, "after": session_files(env)}


def test_resume_after_kill(outcome):
    got = outcome("resume_after_kill")
    assert got["killed"] == -signal.SIGKILL
    assert len(got["before"]) == 1 and "FIRST TASK" in got["saved_text"]
    again = got["again"]
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == "Continuing after the crash."
    assert "Resumed conversation" in again.stderr and "not restored" in again.stderr
    texts = contents(got["requests"][-1])
    assert got["requests"][-1]["messages"][0]["role"] == "system"
    assert "FIRST TASK: take a nap" in texts
    assert any("time.sleep(60)" in t for t in texts)  # the assistant reply with the block
    assert texts[-1].startswith("[interp: this conversation was resumed")
    assert texts[-1].endswith("\n\nSECOND TASK")  # the request comes last
    assert "not restored" in texts[-1]  # the model is told, not only the user
    assert got["after"] == got["before"]  # appended to the same conversation


@scenario(runs=4)
def resume_by_prefix_and_bare(server, env):
    server.default = "ok"
    args = model_args(server)
    runs = {"alpha": run_interp(["-y", "-e", "ALPHA task", *args], env),
            "beta": run_interp(["-y", "-e", "BETA task", *args], env)}
    ids = [p.stem for p in session_files(env)]
    listing = run_interp(["sessions"], env)
    alpha = next(p.stem for p in session_files(env) if "ALPHA" in p.read_text())
    prefix = next(alpha[:n] for n in range(1, len(alpha) + 1)
                  if sum(i.startswith(alpha[:n]) for i in ids) == 1)
    runs["gamma"] = run_interp(["-y", "--resume", prefix, "-e", "GAMMA task", *args], env)
    gamma_request = server.requests[-1]
    # bare --resume before another option means the latest (ALPHA was just appended to)
    runs["delta"] = run_interp(["--resume", "-e", "DELTA task", "-y", "--json", *args], env)
    return {"runs": runs, "ids": ids, "listing": listing, "gamma_request": gamma_request,
            "delta_request": server.requests[-1], "after": session_files(env)}


def test_resume_by_prefix_and_bare(outcome):
    got = outcome("resume_by_prefix_and_bare")
    for name, proc in got["runs"].items():
        assert proc.returncode == 0, (name, proc.stderr)
    assert len(got["ids"]) == 2 and len(got["after"]) == 2

    listing = got["listing"]  # interp sessions
    assert listing.returncode == 0
    assert all(sid in listing.stdout for sid in got["ids"])
    assert "ALPHA task" in listing.stdout and "BETA task" in listing.stdout

    texts = contents(got["gamma_request"])
    assert "ALPHA task" in texts and "BETA task" not in texts
    assert texts[-1].startswith("[interp: this conversation was resumed")
    assert texts[-1].endswith("\n\nGAMMA task")

    texts = contents(got["delta_request"])
    assert "ALPHA task" in " ".join(texts) and "GAMMA task" in " ".join(texts)
    assert texts[-1].endswith("\n\nDELTA task")
    events = [json.loads(line) for line in got["runs"]["delta"].stdout.splitlines()]
    assert events[0]["type"] == "session.started"  # the first line; start-up notices follow
    notices = [e["text"] for e in events[1:3] if e["type"] == "notice"]
    assert notices[0].startswith("Python blocks run with ") and "Resumed" in notices[1]
    started = next(e for e in events if e["type"] == "session.started")
    assert started["resumed"] is True and started["session_id"] in got["ids"]


def test_resume_with_nothing_saved_exit_2(fake_server, interp_env):
    proc = run_interp(["--resume", "-y", "-e", "next", *model_args(fake_server)], interp_env)
    assert proc.returncode == 2
    assert "no saved conversation" in proc.stderr
    assert fake_server.requests == []
    proc = run_interp(["-y", "-e", "next", *model_args(fake_server), "--resume"], interp_env)
    assert proc.returncode == 2 and "no saved conversation" in proc.stderr
    proc = run_interp(["--resume", "nope", "-y", "-e", "next", *model_args(fake_server)], interp_env)
    assert proc.returncode == 2 and "nope" in proc.stderr


def test_sessions_when_there_are_none(interp_env):
    proc = run_interp(["sessions"], interp_env)
    assert proc.returncode == 0 and "No saved conversations" in proc.stdout


# -- startup -------------------------------------------------------------------------------------

SNIPPET = """
import sys
from interp.cli.main import main
sys.argv = ["interp", {flag!r}]
try:
    main()
except SystemExit as exc:
    code = exc.code
print("MODULES", sorted(m for m in sys.modules if m.split('.')[0] in {{'litellm', 'prompt_toolkit'}}
                        or m in {{'languages.process.runner', 'languages.registry'}}))
print("CODE", code)
"""


@pytest.mark.parametrize("flag, needle", [("--version", "interp 0."), ("--help", "--auto-approve")])
def test_version_and_help_import_neither_litellm_nor_prompt_toolkit_nor_runners(interp_env, flag,
                                                                              needle):
    proc = subprocess.run([sys.executable, "-c", SNIPPET.format(flag=flag)], capture_output=True,
                          text=True, env=interp_env["env"], cwd=interp_env["cwd"], timeout=60)
    lines = proc.stdout.splitlines()
    assert lines[-2] == "MODULES []", proc.stdout + proc.stderr
    assert lines[-1] in ("CODE 0", "CODE None")
    assert needle in proc.stdout


def test_version_via_the_executable(interp_env):
    proc = run_interp(["--version"], interp_env)
    assert proc.returncode == 0 and proc.stdout.startswith("interp ")
