"""The real `interp` against the fake server: nothing lost, nothing crashes (issue 11).

Lone surrogates from the model and undecodable bytes in the task are stored and shown;
saved lines of the wrong shape are skipped with a warning; SIGTERM and SIGHUP end interp
with every runner process gone and the conversation kept; install hints name the Python
that runs the blocks. Files read for context (AGENTS.md, files a task names, files a block
wrote) are read only as far as they are used: huge sparse files, a link to a growing log
and a FIFO neither hang interp nor cost it more than a few megabytes (issue 46)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import interp_cmd, model_args, run_interp
from pty_terminal import fenced

GUARD = 60.0  # seconds: a hang guard, never a timing assertion


def interp_python() -> str:
    """The interpreter the `interp` command runs in (its script's #! line)."""
    cmd = interp_cmd()
    return cmd[0] if cmd[0] == sys.executable else open(cmd[0]).readline()[2:].strip()


def session_files(env) -> list:
    return sorted((env["data"] / "interp" / "sessions").glob("*.jsonl"))


def saved_messages(env) -> list[dict]:
    [path] = session_files(env)
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [r["message"] for r in records if r.get("type") == "message"]


def wait_for(check, what: str):
    deadline = time.monotonic() + GUARD
    while not (found := check()):
        assert time.monotonic() < deadline, f"hang guard: no {what}"
        time.sleep(0.05)
    return found


def gone(pid: int) -> bool:
    try:
        state = open(f"/proc/{pid}/stat").read()
    except OSError:
        return True
    return state[state.rfind(")") + 2] in "ZX"


# -- lone surrogates ---------------------------------------------------------------------------

def test_lone_surrogates_from_the_model_are_stored_and_shown(fake_server, interp_env):
    reply = "Here \ud800 it is.\n" + fenced("python", "print('x\ud800y')", before="")
    fake_server.script([reply, "All done \udfff."])
    proc = run_interp(["-y", "-e", "go", *model_args(fake_server)], interp_env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "All done \ufffd."
    assert "x\ufffdy" in proc.stderr and "Here \ufffd it is." in proc.stderr
    assert "UnicodeEncodeError" not in proc.stderr
    contents = [m.get("content") or "" for m in saved_messages(interp_env)]
    assert any("Here \ufffd it is." in c for c in contents)  # the reply is not lost
    assert any("x\ufffdy" in c for c in contents) and contents[-1] == "All done \ufffd."
    told = fake_server.requests[1]["messages"][-1]["content"]
    assert "x\ufffdy" in told

    fake_server.script([reply, "Again \ud800."])
    proc = run_interp(["-y", "--json", "-e", "go", *model_args(fake_server)], interp_env)
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [e["text"] for e in events if e["type"] == "message"][-1] == "Again \ufffd."

    sid = session_files(interp_env)[0].stem
    export = run_interp(["export", sid, "--format", "md", "-o", "-"], interp_env)
    assert export.returncode == 0 and "Here \ufffd it is." in export.stdout


def test_task_with_bytes_that_are_not_utf8_is_saved_and_sent(fake_server, interp_env):
    fake_server.script(["Got it.", "Got it too."])
    task = os.fsdecode(b"hello \xff\xfe")  # what Python makes of $'hello \xff\xfe' in argv
    proc = run_interp(["-y", "-e", task, *model_args(fake_server)], interp_env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Got it."
    assert fake_server.requests[0]["messages"][-1]["content"] == "hello \ufffd\ufffd"
    assert saved_messages(interp_env)[1]["content"] == "hello \ufffd\ufffd"

    piped = subprocess.run(interp_cmd() + ["-y", *model_args(fake_server)],
                           input=b"piped \xff task\n", capture_output=True,
                           env=interp_env["env"], cwd=interp_env["cwd"], timeout=120)
    assert piped.returncode == 0, piped.stderr
    assert fake_server.requests[1]["messages"][-1]["content"] == "piped \ufffd task"


# -- saved lines of the wrong shape ------------------------------------------------------------

def test_resume_skips_saved_lines_of_the_wrong_shape_with_a_warning(fake_server, interp_env):
    fake_server.script(["First answer.", "Second answer."])
    assert run_interp(["-y", "-e", "FIRST", *model_args(fake_server)], interp_env).returncode == 0
    [path] = session_files(interp_env)
    good = len(path.read_text().splitlines())
    with open(path, "a") as handle:
        handle.write('{"type":"message","message":{"role":"user","content":123}}\n'
                     '{"type":"message","message":{"role":"assistant","content":"x",'
                     '"tool_calls":"nope"}}\n'
                     '{"type":"message","message":{"role":"tool","content":"no id"}}\n'
                     '{"type":"message","message":["not", "a", "dict"]}\n'
                     '{"type": "message", "mess\n')
    proc = run_interp(["-y", "--resume", "-e", "SECOND", *model_args(fake_server)], interp_env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Second answer."
    shown = " ".join(proc.stderr.split())  # as wrapped on the terminal
    assert "Could not reach" not in shown
    for offset, what in enumerate(["content is int", "malformed tool calls",
                                   "without a tool_call_id", "not an object", "not JSON"]):
        assert f"line {good + offset + 1} of {path.name} was skipped: " in shown
        assert what in shown
    sent = fake_server.requests[-1]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
    assert sent[-1]["content"].endswith("\n\nSECOND")  # (after the note that state was not kept)


# -- SIGTERM and SIGHUP ---------------------------------------------------------------------------

BLOCK = ("trap '' HUP\nsleep 300 &\necho $! > bg.pid\necho $$ > shell.pid\n"
         "echo started\nwait")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_signal_ends_interp_kills_every_runner_process_and_keeps_the_session(signum, fake_server,
                                                                            interp_env):
    cwd = interp_env["cwd"]
    fake_server.script([fenced("shell", BLOCK, before="Starting a long job.")])
    proc = subprocess.Popen(interp_cmd() + ["-y", "-e", "FIRST TASK", *model_args(fake_server)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=interp_env["env"], cwd=cwd)
    try:
        pids = wait_for(lambda: all((cwd / n).exists() and (cwd / n).read_text().strip()
                                    for n in ("bg.pid", "shell.pid")) and
                        [int((cwd / n).read_text()) for n in ("bg.pid", "shell.pid")],
                        "block start")
        proc.send_signal(signum)
        assert proc.wait(timeout=GUARD) == -signum  # it dies of the signal, as a shell expects
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    # even the job that ignores SIGHUP is gone: interp stopped its runners itself
    wait_for(lambda: all(gone(pid) for pid in pids), "runner processes ending")
    contents = [m.get("content") or "" for m in saved_messages(interp_env)]
    assert "FIRST TASK" in contents and any("sleep 300" in c for c in contents)

    fake_server.script(["Resumed fine."])
    again = run_interp(["-y", "--resume", "-e", "SECOND TASK", *model_args(fake_server)],
                       interp_env)
    assert again.returncode == 0 and again.stdout.strip() == "Resumed fine.", again.stderr
    sent = [m.get("content") for m in fake_server.requests[-1]["messages"]]
    assert "FIRST TASK" in sent and sent[-1].endswith("\n\nSECOND TASK")


# -- the Python that runs the blocks ---------------------------------------------------------------

def notices(proc) -> list[str]:
    return [e["text"] for e in map(json.loads, proc.stdout.splitlines()) if e["type"] == "notice"]


def test_startup_and_install_hint_name_the_python_that_runs_blocks(fake_server, interp_env):
    """The install interp proposes (and -y runs) goes to that Python too; pip finds nothing to
    install here (no index), so the hint stays the model's way on."""
    fake_server.script([fenced("python", "import sys\nprint(sys.executable)\nimport polars"),
                        fenced("shell", "python -c 'import sys; print(sys.executable)'"),
                        "No polars here."])
    proc = run_interp(["-y", "--json", "-e", "go", *model_args(fake_server)], interp_env)
    assert proc.returncode == 0, proc.stderr
    python = interp_python()
    assert notices(proc)[0] == (f"Python blocks run with {python} (the Python interp runs in); "
                                f"python and pip in shell blocks are the same one.")
    told = fake_server.requests[1]["messages"][-1]["content"]
    assert f"{python}\n" in told
    assert f"`{python} -m pip install polars`" in told
    assert "[Block 2, python]" in told and "%pip install polars" in str(proc.stdout)
    assert f"{python}\n" in fake_server.requests[2]["messages"][-1]["content"]  # the shell's


def test_virtualenv_python_is_used_and_named_unless_one_is_chosen(fake_server, interp_env,
                                                                   tmp_path):
    venv = tmp_path / "project-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    env = dict(interp_env, env=dict(interp_env["env"], VIRTUAL_ENV=str(venv)))
    fake_server.script([fenced("python", "import sys\nprint(sys.prefix)"), "ok"])
    proc = run_interp(["-y", "--json", "-e", "go", *model_args(fake_server)], env)
    assert proc.returncode == 0, proc.stderr
    assert notices(proc)[0] == (f"Python blocks run with {venv}/bin/python "
                                f"(the active virtualenv {venv}); python and pip in shell "
                                f"blocks are the same one.")
    assert f"{venv}\n" in fake_server.requests[1]["messages"][-1]["content"]

    fake_server.script([fenced("python", "import sys\nprint(sys.prefix)"), "ok"])
    flagged = run_interp(["-y", "--json", "--python", sys.executable, "-e", "go",
                          *model_args(fake_server)], env)
    assert flagged.returncode == 0, flagged.stderr
    assert notices(flagged)[0] == (f"Python blocks run with {sys.executable} "
                                   "(chosen with --python, INTERP_PYTHON or config.toml); "
                                   "python and pip in shell blocks are the same one.")
    assert f"{sys.prefix}\n" in fake_server.requests[-1]["messages"][-1]["content"]


# -- files read for context, read only as far as they are used (issue 46) ----------------------

GIB = 1 << 30
READ_BOUND = 100 << 20  # bytes interp itself reads in one of these runs (about 11 MB by itself)


def _sparse(path, text: str, size: int) -> None:
    """A file that starts with `text` and holds `size` bytes (the rest a hole)."""
    with open(path, "wb") as handle:
        handle.write(text.encode())
        handle.truncate(size)


def _bytes_read(args: list[str], interp_env) -> tuple[subprocess.CompletedProcess, int]:
    """Run the real `interp` to its end, and the bytes it read itself (/proc/PID/io's rchar,
    read before the process is reaped)."""
    proc = subprocess.Popen(interp_cmd() + args, env=interp_env["env"], cwd=interp_env["cwd"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT),
                 "end of interp")
        with open(f"/proc/{proc.pid}/io") as handle:
            read = int(handle.readline().split()[1])  # rchar
        out, err = proc.communicate(timeout=GUARD)
    finally:
        proc.kill()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err), read


def test_huge_and_growing_agents_md_files_are_read_only_as_far_as_they_are_used(
        fake_server, interp_env, tmp_path):
    root = interp_env["cwd"]
    (root / ".git").mkdir()
    work = root / "app"
    work.mkdir()
    _sparse(root / "AGENTS.md", "Use uv, not pip.\n", 2 * GIB)
    user = Path(interp_env["env"]["XDG_CONFIG_HOME"]) / "interp"
    user.mkdir(parents=True)
    _sparse(user / "AGENTS.md", "Answer in French.\n", 50 << 20)
    log = tmp_path / "growing.log"  # a log that grows while interp starts
    writer = subprocess.Popen([sys.executable, "-c", (
        "import time\nwith open(%r, 'ab', buffering=0) as f:\n"
        "    while True:\n        f.write(b'log line\\n' * 400); time.sleep(0.01)") % str(log)])
    try:
        wait_for(lambda: log.exists() and log.stat().st_size > 0, "log line")
        (work / "AGENTS.md").symlink_to(log)
        fake_server.script(["Bonjour."])
        env = dict(interp_env, cwd=work)
        proc, read = _bytes_read(["-y", "--json", "-e", "hi", *model_args(fake_server)], env)
    finally:
        writer.kill()
        writer.wait()
    assert proc.returncode == 0, proc.stderr
    assert read < READ_BOUND, f"interp read {read:,} bytes"
    said = " ".join(notices(proc))
    assert "Instructions read from" in said and "(cut to " in said and "of 2.0 GB)" in said
    prompt = fake_server.requests[0]["messages"][0]["content"]
    assert "Answer in French." in prompt and "Use uv, not pip." in prompt


def test_files_a_task_names_or_a_block_writes_are_read_only_as_far_as_they_are_used(
        fake_server, interp_env):
    work = interp_env["cwd"]
    _sparse(work / "report.py", "import csv\nrows = list(csv.reader(open('sales.csv')))\n"
            "print(len(rows))\n", GIB)
    (work / "sales.csv").write_text("item,units\npen,3\ncup,4\n")
    os.mkfifo(work / "notes.txt")  # named in the task: never opened for reading
    code = ("import csv\nrows = list(csv.reader(open('sales.csv')))\n"
            "open('totals.csv', 'w').write('units\\n7\\n')\n"
            "with open('inventory.json', 'wb') as f:\n    f.write(b'[')\n    f.truncate(2**30)\n"
            "print(len(rows))")
    fake_server.script([fenced("python", code), "Done: 7 units."])
    task = ("fix report.py so that it writes totals.csv from sales.csv, save inventory.json "
            "with the units as numbers, and read notes.txt")
    proc, read = _bytes_read(["-y", "--json", "-e", task, *model_args(fake_server)],
                             interp_env)
    assert proc.returncode == 0, proc.stderr
    assert read < READ_BOUND, f"interp read {read:,} bytes"
    sent = fake_server.requests[0]["messages"][-1]["content"]
    assert "File: " + str(work / "report.py") in sent and "notes.txt" not in sent.split(task)[1]
    told = fake_server.requests[1]["messages"][-1]["content"]
    assert "Files created: inventory.json (1.0 GiB)" in told


def test_the_python_flags_help_says_which_python_runs_blocks(fake_server, interp_env):
    said = "(default: the active virtualenv's Python, else the one interp runs in)"
    for command in ([], ["mcp"]):
        shown = run_interp([*command, "--help"], interp_env)
        assert shown.returncode == 0, shown.stderr
        text = " ".join(shown.stdout.replace("│", " ").split())
        assert f"--python PATH Python interpreter for python blocks {said}" in text
        assert "python3 on PATH" not in text
    fake_server.script([fenced("python", "import sys\nprint(sys.executable)"), "ok"])
    proc = run_interp(["-y", "-e", "which python?", *model_args(fake_server)], interp_env)
    assert proc.returncode == 0 and "VIRTUAL_ENV" not in interp_env["env"]
    assert f"{interp_python()}\n" in fake_server.requests[1]["messages"][-1]["content"]
