"""A run that cannot reach the model, and Ctrl-C during a run, from the real `interp eval`
(issue 23): one line, a non-zero status, finished problems recorded."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import time
from pathlib import Path

import pexpect

from fake_openai import FakeOpenAI, Reply
from gguf_samples import sample
from helpers import HANG_GUARD, interp_cmd, model_args, run_interp
from interp.eval.data import load_problems
from local_fixtures import needs_xllamacpp
from pty_terminal import Term

PROBLEMS = load_problems("humaneval")


def _records(folder: Path) -> list[dict]:
    path = folder / "humaneval-none.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _right(body: dict) -> Reply:
    first = next(m["content"] for m in body["messages"] if m["role"] == "user")
    problem = next(p for p in PROBLEMS if p.prompt.strip() in first)
    return Reply(text=f"```python\n{problem.reference}\n```\n")


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_unreachable_server_stops_the_run_at_once_with_one_line(interp_env, tmp_path):
    base = f"http://127.0.0.1:{_closed_port()}/v1"
    done = run_interp(["eval", "humaneval", "--model", "openai/x", "--api-base", base, "--api-key",
                       "sk-x", "--limit", "5", "--out", str(tmp_path / "out")], interp_env, timeout=300)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines[-1] == (f"interp eval: no problem reached the model (recorded in {tmp_path / 'out'}/): "
                         f"Could not reach {base}: is the server running? (--api-base)")
    assert "Traceback" not in done.stderr and "pass@1" not in done.stdout
    (record,) = _records(tmp_path / "out")  # stopped after the first: every call would fail alike
    assert record["error"].startswith("Could not reach") and not record["passed"]


def test_a_run_whose_every_call_fails_is_an_error(interp_env, tmp_path):
    with FakeOpenAI(default=Reply(status=400, error="This model does not take these messages.")) as server:
        done = run_interp(["eval", "humaneval", *model_args(server), "--limit", "2", "--json",
                           "--out", str(tmp_path / "out")], interp_env, timeout=300)
    assert done.returncode == 1, done.stderr
    assert done.stdout == ""
    assert done.stderr.strip().splitlines()[-1].startswith(
        f"interp eval: no problem reached the model (recorded in {tmp_path / 'out'}/): ")
    assert "This model does not take these messages." in done.stderr
    assert [r["task_id"] for r in _records(tmp_path / "out")] == ["HumanEval/0", "HumanEval/1"]
    assert all(r["error"] for r in _records(tmp_path / "out"))


def test_a_run_where_some_calls_fail_still_scores(interp_env, tmp_path):
    with FakeOpenAI([_right, Reply(status=400)], default=_right) as server:
        done = run_interp(["eval", "humaneval", *model_args(server), "--limit", "3", "--json",
                           "--out", str(tmp_path / "out")], interp_env, timeout=300)
    assert done.returncode == 0, done.stderr
    (summary,) = json.loads(done.stdout)["summaries"]
    assert (summary["passed"], summary["model_errors"]) == (2, 1)


@needs_xllamacpp
def test_a_local_model_that_cannot_load_is_one_line_with_llama_cpps_reason(interp_env, tmp_path):
    model = tmp_path / "broken.gguf"
    model.write_bytes(sample())  # a header llama.cpp refuses: no tensors, an odd key type
    done = run_interp(["eval", "humaneval", "--local", str(model), "--limit", "3",
                       "--out", str(tmp_path / "out")], interp_env, timeout=600)
    assert done.returncode == 1, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("interp eval: no problem reached the model (recorded in ")
    assert "Local model: the local model did not load: " in last and "llama.cpp's log" in last
    assert "Traceback" not in done.stderr and "pass@1" not in done.stdout
    (record,) = _records(tmp_path / "out")
    assert "did not load" in record["error"]


def _wait_for(condition, what: str) -> None:
    end = time.monotonic() + HANG_GUARD
    while not condition():
        assert time.monotonic() < end, f"no {what} within {HANG_GUARD:g} s"
        time.sleep(0.05)


def test_ctrl_c_stops_at_once_while_the_model_is_answering(interp_env, tmp_path):
    out = tmp_path / "out"
    slow = Reply(text="```python\npass\n```", delay=60)  # as long as the server ever waits
    with FakeOpenAI([_right, slow], default=_right) as server:
        cmd = interp_cmd() + ["eval", "humaneval", *model_args(server), "--limit", "3",
                              "--out", str(out)]
        child = pexpect.spawn(cmd[0], cmd[1:], env=dict(interp_env["env"], TERM="xterm"),
                              cwd=str(interp_env["cwd"]), dimensions=(40, 120),
                              encoding="utf-8", timeout=30)
        term = Term(child)
        try:
            _wait_for(lambda: len(server.requests) == 2 and len(_records(out)) == 1,
                      "second request")
            term.expect(r"humaneval none")  # the progress bar is drawn
            child.sendintr()  # Ctrl-C, as the terminal sends it
            term.expect(r"interp eval: interrupted; results so far are in ")
            status = term.wait(guard=30)  # well before the model's answer (60 s)
        finally:
            if child.isalive():
                child.close(force=True)
        answered = len(server.requests)
    assert status == 130
    assert "Traceback" not in term.text and "Aborted" not in term.text
    assert answered == 2
    assert [r["task_id"] for r in _records(out)] == ["HumanEval/0"]


def test_sigint_stops_a_json_run_at_once_too(interp_env, tmp_path):
    out = tmp_path / "out"
    with FakeOpenAI([Reply(text="slow", delay=60)]) as server:
        process = subprocess.Popen(interp_cmd() + ["eval", "humaneval", *model_args(server), "--json",
                                                   "--limit", "2", "--jobs", "2", "--out", str(out)],
                                   env=interp_env["env"], cwd=interp_env["cwd"], text=True,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            _wait_for(lambda: len(server.requests) == 2, "requests")
            process.send_signal(signal.SIGINT)
            stdout, stderr = process.communicate(timeout=30)  # well before the answers (60 s)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    assert process.returncode == 130, stderr
    assert stderr.strip().splitlines() == [
        f"interp eval: interrupted; results so far are in {out} (run the same command again to resume)"]
    assert stdout == ""
