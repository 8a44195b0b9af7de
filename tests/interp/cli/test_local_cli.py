"""`interp --local` as a person or a script uses it: the real interp, the real llama.cpp server
(from xllamacpp) and real small models; downloads from a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import re
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import pexpect
import pytest

from file_server import FileServer
from helpers import hang_guard, interp_cmd, run_interp, write_config
from interp.models.local.files import DEFAULT_MODEL
from interp.ui.local_setup import OFFER
from pty_terminal import Term, screen_lines
from local_fixtures import cached, finish, loose, needs_xllamacpp, servers_for, wait_gone

TASK = "Use Python to compute 123456789 * 987654321 and tell me the result."


# -- choosing and finding the model ---------------------------------------------------------
def test_model_and_local_together_is_a_usage_error(interp_env):
    done = run_interp(["--model", "gpt-4o", "--local", "-y", "-e", "x"], interp_env)
    assert done.returncode == 2 and "--model or --local, not both" in done.stderr


@needs_xllamacpp
def test_a_missing_model_file_is_one_line(interp_env):
    done = run_interp(["--local", "/no/such/model.gguf", "-y", "-e", "x"], interp_env)
    assert done.returncode == 2
    assert done.stderr.strip() == "interp: --local /no/such/model.gguf: no such file"


@needs_xllamacpp
@pytest.mark.parametrize("command", [[], ["eval", "humaneval", "--limit", "1"]], ids=["interp", "eval"])
def test_a_fifo_named_model_gguf_is_one_line_not_a_hang(interp_env, tmp_path, command):
    fifo = tmp_path / "model.gguf"
    os.mkfifo(fifo)  # opening it to read would wait for a writer forever
    extra = [] if command else ["-y", "-e", "x"]
    done = run_interp([*command, "--local", str(fifo), *extra], interp_env, timeout=60)
    assert done.returncode == 2
    prefix = "interp eval: " if command else "interp: "
    assert done.stderr.strip() == f"{prefix}--local {fifo}: is a named pipe (FIFO), not a .gguf file"


@needs_xllamacpp
def test_a_header_with_absurd_counts_names_what_is_wrong(interp_env, tmp_path):
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 1 << 40))
    done = run_interp(["--local", str(model), "-y", "-e", "x"], interp_env)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"interp: --local {model}: not a GGUF model file (its header is cut off or damaged: the "
        "header claims 1,099,511,627,776 metadata keys (a model has a few dozen; at most 65,536 "
        "are read))")
    assert "version" not in done.stderr


@needs_xllamacpp
def test_a_local_model_file_alone_selects_the_local_model(interp_env, tmp_path):
    env = dict(interp_env, env=dict(interp_env["env"],
                                    INTERP_LOCAL_MODEL=str(tmp_path / "typo.gguf")))
    done = run_interp(["-y", "-e", "x"], env)
    assert done.returncode == 2 and "typo.gguf: no such file" in done.stderr


@needs_xllamacpp
@pytest.mark.parametrize("how", ["flag", "env", "config"])
def test_without_a_model_or_terminal_it_says_what_to_do(interp_env, how):
    env = cached(interp_env)
    args = ["-y", "-e", "x"]
    if how == "flag":
        args = ["--local", *args]
    elif how == "env":
        env["env"]["INTERP_MODEL"] = "local"
    else:
        write_config(env, 'model = "local"\n')
    done = run_interp(args, env)
    assert done.returncode == 2
    line = done.stderr.strip()
    assert line.startswith("interp: no local model yet.") and "\n" not in line
    assert "--local PATH.gguf" in line and "INTERP_LOCAL_MODEL" in line
    assert str(Path(env["env"]["XDG_CACHE_HOME"]) / "interp" / "models") in line


def test_without_xllamacpp_it_says_how_to_install(interp_env, tmp_path):
    blocker = tmp_path / "sitecustomize.py"  # a Python that cannot import xllamacpp
    blocker.write_text("import sys\nclass Block:\n    def find_spec(self, name, *a):\n"
                       "        if name.split('.')[0] == 'xllamacpp':\n"
                       "            raise ModuleNotFoundError(name)\n"
                       "sys.meta_path.insert(0, Block())\n")
    env = dict(interp_env["env"], PYTHONPATH=str(tmp_path))
    done = subprocess.run([sys.executable, "-m", "interp", "--local", "-y", "-e", "x"],
                          env=env, cwd=interp_env["cwd"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2
    assert "pip install 'interp[local]'" in done.stderr and "xllamacpp==" in done.stderr
    assert "Traceback" not in done.stderr


# -- no model, no key: the offer, and the download ---------------------------------------------
def test_no_model_no_key_offers_local_and_no_shows_the_help(local_pty):
    term = local_pty()
    term.expect(loose("no API key was found"))
    term.expect(r"Use the local model\? \[Y/n\]")
    term.send("n")  # one key, no Enter
    term.expect(r" no$")
    term.expect("No model is configured")
    term.expect(r"No key:\s+interp --local")
    assert finish(term) == 2


@pytest.mark.parametrize("columns", [120, 67])
def test_the_offer_wraps_at_word_boundaries(interp_env, columns):
    env = dict(interp_env["env"], TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1", COLUMNS="")
    cmd = interp_cmd()
    term = Term(pexpect.spawn(cmd[0], cmd[1:], env=env, cwd=str(interp_env["cwd"]),
                              dimensions=(40, columns), encoding="utf-8", timeout=30))
    try:
        term.expect(r"Use the local model\? \[Y/n\]")
        term.send("\x03")  # Ctrl-C: no
        finish(term)
    finally:
        if term.child.isalive():
            term.child.close(force=True)
    lines = screen_lines(term.raw, columns)
    first = next(i for i, line in enumerate(lines) if line.startswith("No model is configured"))
    last = next(i for i, line in enumerate(lines) if line.endswith("the machine."))
    assert last > first  # it did not fit one line
    assert " ".join(lines[first:last + 1]) == OFFER  # every break is between two words
    assert all(len(line) <= columns for line in lines[first:last + 1])


def test_with_a_key_there_is_no_offer(local_pty):
    term = local_pty(env={"ANTHROPIC_API_KEY": "sk-ant-test-123456"})
    term.expect("No model is configured")
    assert finish(term) == 2
    assert "Use the local model" not in term.text


@needs_xllamacpp
def test_the_download_is_offered_and_a_bad_file_never_becomes_the_model(local_pty,
                                                                        interp_env):
    path = f"/{DEFAULT_MODEL.repo}/resolve/main/{DEFAULT_MODEL.filename}"
    with FileServer({path: b"GGUF not really a model" * 1000}) as server:
        term = local_pty(env={"HF_ENDPOINT": server.base})
        term.expect(r"Use the local model\? \[Y/n\]")
        term.send("\r")  # Enter alone: the default, yes
        term.expect(r"not downloaded yet: Qwen2\.5-Coder-1\.5B-Instruct Q4_K_M, 1\.1 GB from\s+"
                    r"127\.0\.0\.1:\d+")
        term.expect(r"Download it now\? \[Y/n\]")
        term.send("y")  # one key, no Enter
        term.expect(r"interp: downloading the local model failed: .* has 23000 bytes, not\s+"
                    r"1117320768; it was deleted")
        assert finish(term) == 2
    models = interp_env["cwd"].parent / "cache" / "interp" / "models"
    assert list(models.iterdir()) == []  # neither the model nor a .part
    assert server.requests == [(path, None)]


@needs_xllamacpp
def test_declining_the_download_says_what_to_do(local_pty):
    term = local_pty("--local")
    term.expect(r"Download it now\? \[Y/n\]")
    term.send("x")  # not an answer: the keys are explained and the question asked again
    term.expect("Press y for yes or n for no")
    term.expect(r"Download it now\? \[Y/n\]")
    term.send("n")
    term.expect("no local model yet")
    assert finish(term) == 2


# -- a session on the local model ---------------------------------------------------------------
@needs_xllamacpp
def test_interactive_session_loads_at_start_and_tokens_shows_speed(
        local_pty, smol_gguf, own_copy):
    model = own_copy(smol_gguf)
    term = local_pty("--local", str(model), "--max-turns", "1",
               env={"INTERP_LOCAL_CONTEXT": "2048", "INTERP_LOCAL_THREADS": "1"})
    term.expect(r"model local")
    term.expect(loose("(llama.cpp, 1 thread); loading it now."))
    assert f"{model} (llama.cpp" in flat(term.text)  # a long path may be folded
    term.prompt()
    assert _find_server(model)  # loading while the person types: before the first task
    term.line("Say hello.")
    term.expect(loose(f"Local model {model.name} ready: context 2048 tokens, 1 thread (loaded in"),
                guard=180)
    term.settle(guard=180)  # a real model may answer with a block: it is declined
    assert len(servers_for(model)) == 1
    term.line("/tokens")
    term.expect(r"Cost: \$0\.0000")
    term.expect(r"Context now: [\d,]+ of 2,048 tokens \(\d+% full; compacted at 70%\)\.")
    term.expect(r"Local\s+model\s+speed\s+\(measured\s+by\s+llama\.cpp\):\s+prompt\s+\d+\s+tokens"
                r"\s+at\s+[\d.]+\s+tokens/s,\s+generation\s+\d+\s+tokens\s+at\s+[\d.]+\s+tokens/s\.")
    assert term.exit_status() == 0
    wait_gone(model)


def flat(text: str) -> str:
    """`text` with line breaks a terminal-wide fold put into long words taken out."""
    return re.sub(r"\s*\n\s*", "", text)


def _find_server(model: Path, guard: float = 120) -> int:
    with hang_guard(guard, "no server process appeared"):
        while not (pids := servers_for(model)):
            time.sleep(0.05)
    return pids[0]


@needs_xllamacpp
def test_ctrl_c_while_loading_returns_to_the_prompt(local_pty, smol_gguf, own_copy):
    model = own_copy(smol_gguf)
    term = local_pty("--local", str(model), "--max-turns", "1",
               env={"INTERP_LOCAL_CONTEXT": "2048"})
    term.prompt()
    term.line("Say hello.")
    pid = _find_server(model)
    os.kill(pid, signal.SIGSTOP)  # hold the load, so that Ctrl-C surely comes during it
    try:  # litellm may still be loading (and holding the GIL) in the background: be patient
        term.expect("Loading the local model", guard=180)
        term.send("\x03")
        term.expect("Reply interrupted", guard=180)
        term.prompt()
    finally:
        os.kill(pid, signal.SIGCONT)
    term.line("Say hello again.")  # the load went on; the next task uses it
    term.expect(loose("ready: context 2048 tokens"), guard=180)
    term.settle(guard=180)  # a real model may answer with a block: it is declined
    assert servers_for(model) == [pid]
    term.line("/exit")
    assert finish(term) == 0
    wait_gone(model)


@needs_xllamacpp
@pytest.mark.parametrize("how", ["ctrl-c", "sigterm", "sigkill", "error"])
def test_the_server_stops_with_interp(local_pty, smol_gguf, own_copy, how):
    model = own_copy(smol_gguf)
    task = "Write a very long story about a lighthouse keeper."
    env = {"INTERP_LOCAL_CONTEXT": "2048", "INTERP_LOCAL_TEMPERATURE": "1"}
    if how == "error":  # a context too small for the system prompt: llama.cpp refuses
        env["INTERP_LOCAL_CONTEXT"] = "64"
    term = local_pty("--local", str(model), "-y", "-e", task, "--max-turns", "1", env=env)
    term.expect(r"ready:\s+context\s+\d+\s+tokens", guard=180)
    if how == "ctrl-c":
        term.send("\x03")
    elif how == "sigterm":
        term.child.kill(signal.SIGTERM)
    elif how == "sigkill":
        term.child.kill(signal.SIGKILL)
    status = finish(term)
    if how == "ctrl-c":
        assert status == 130
    elif how == "error":
        assert status == 1 and "too long for" in term.text
    wait_gone(model)


# -- the end-to-end task ----------------------------------------------------------------------
@needs_xllamacpp
def test_a_real_task_end_to_end(interp_env, qwen05_gguf, own_copy):
    """Qwen2.5-Coder-0.5B, temperature 0, one thread: a task that needs one Python block."""
    model = own_copy(qwen05_gguf)
    env = dict(interp_env["env"], INTERP_LOCAL_TEMPERATURE="0", INTERP_LOCAL_THREADS="1",
               INTERP_LOCAL_CONTEXT="4096")
    done = subprocess.run(interp_cmd() + ["--local", str(model), "--no-tools", "-y", "--json",
                                          "--max-turns", "4", "-e", TASK],
                          env=env, cwd=interp_env["cwd"], capture_output=True, text=True,
                          timeout=900)
    events = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = [e["type"] for e in events]
    assert done.returncode == 0, done.stderr[-2000:]
    assert "ready: context 4096 tokens" in done.stderr
    proposed = [e for e in events if e["type"] == "block.proposed"]
    assert proposed and proposed[0]["language"] == "python"
    finished = [e for e in events if e["type"] == "block.finished"]
    assert finished and finished[0]["status"] == "ok"
    output = "".join(e["text"] for e in events
                     if e["type"] == "block.output" and e["index"] == finished[0]["index"])
    assert output.strip()
    assert kinds[-2:] == ["task.finished", "session.finished"]
    assert events[-2]["exit_code"] == 0 and events[-2]["reason"] == "done"
    assert events[-1]["exit_code"] == 0
    # its output went back to the model: the saved conversation has it after the block
    saved = next((interp_env["data"] / "interp" / "sessions").glob("*.jsonl"))
    messages = [json.loads(line) for line in saved.read_text().splitlines()]
    texts = [json.dumps(m) for m in messages]
    assert any(output.strip() in text for text in texts[texts.index(next(
        t for t in texts if '"assistant"' in t)):])
    wait_gone(model)
