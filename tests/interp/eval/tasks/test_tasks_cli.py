"""`interp eval tasks` end to end: the real CLI, real litellm, a scripted server or the small
test model run by llama.cpp."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest

from fake_openai import FakeOpenAI, Reply
from helpers import interp_cmd, model_args, run_interp
from local_fixtures import needs_xllamacpp, servers_for
from task_replies import scripted


def records(folder) -> list[dict]:
    return [json.loads(line) for line in (folder / "tasks.jsonl").read_text().splitlines()]


def test_a_right_run_prints_json_figures_and_a_rerun_resumes(interp_env, tmp_path):
    out = tmp_path / "out"
    args = ["eval", "tasks", "--limit", "2", "--json", "--out", str(out)]
    with FakeOpenAI(default=scripted("right")) as server:
        done = run_interp([*args, *model_args(server)], interp_env, timeout=300)
        calls = len(server.requests)
        again = run_interp([*args, *model_args(server)], interp_env, timeout=300)
        assert len(server.requests) == calls == 4  # two calls a task; the rerun asked nothing
    assert done.returncode == again.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    (summary,) = payload["summaries"]
    assert (payload["benchmark"], payload["model"], payload["out"]) == ("tasks", "openai/fake-model", str(out))
    assert (summary["tasks"], summary["right"], summary["clean"], summary["clean_pct"]) == (2, 2, 2, 100.0)
    assert summary["mean_calls"] == 2.0 and summary["exits"] == {"ok": 2}
    assert json.loads(again.stdout)["summaries"] == payload["summaries"]
    found = records(out)
    assert [r["task_id"] for r in found] == ["stats-mean-median", "stats-top-product-q2"]
    first = found[0]
    assert first["right"] and first["clean"] and first["exit_code"] == 0 and first["failed"] == []
    assert first["final_message"].startswith("Done.") and first["model_calls"] == 2
    assert first["prompt_tokens"] > 0 and first["seconds"] > 0 and first["files"] == ["students.csv"]
    assert "Traceback" not in done.stderr


def test_the_table_names_the_figures_and_what_failed(interp_env, tmp_path):
    with FakeOpenAI(default=scripted("wrong")) as server:
        done = run_interp(["eval", "tasks", *model_args(server), "--limit", "1", "--out",
                           str(tmp_path / "o")], interp_env, timeout=300)
    assert done.returncode == 0, done.stderr
    for text in ("tasks · openai/fake-model", "right, clean finish", "0.0% (0)",
                 "by category (right/clean of tasks): stats 0/0 of 1", "ended: ok 1", "Results:"):
        assert text in done.stdout, done.stdout
    (record,) = records(tmp_path / "o")
    assert record["failed"] == ["answer: the mean: 69.01 not stated",
                                "answer: the median: 69.2 not stated"]


def test_max_turns_bounds_the_model_calls_of_a_task(interp_env, tmp_path):
    with FakeOpenAI(default=Reply(text="```python\nprint('still working')\n```")) as server:
        done = run_interp(["eval", "tasks", *model_args(server), "--limit", "1", "--max-turns", "1",
                           "--json", "--out", str(tmp_path / "o")], interp_env, timeout=300)
    assert done.returncode == 0, done.stderr
    (record,) = records(tmp_path / "o")
    assert (record["exit_code"], record["model_calls"], record["right"]) == (3, 1, False)
    assert json.loads(done.stdout)["summaries"][0]["exits"] == {"max turns": 1}


@pytest.mark.parametrize("args, message", [
    (["--feedback", "none"], "--feedback takes only self here"),
    (["--data", "x.jsonl"], "the tasks are built in; --data does not apply"),
    (["--limit", "0"], "must be at least 1"),
    (["--max-turns", "0"], "must be at least 1"),
])
def test_bad_flags_are_one_clear_line(interp_env, fake_server, args, message):
    done = run_interp(["eval", "tasks", *model_args(fake_server), *args], interp_env)
    assert done.returncode == 2
    assert done.stderr.startswith("interp eval: ") and message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and fake_server.requests == []


def test_ctrl_c_stops_at_once_and_keeps_what_finished(interp_env, tmp_path):
    """The second task's model call hangs; Ctrl-C ends the run without waiting for it."""
    right = scripted("right")
    hang = Reply(text="late", delay=55)

    def reply(body):
        first = next(m["content"] for m in body["messages"] if m["role"] == "user")
        return right(body) if "students.csv" in first else hang

    with FakeOpenAI(default=reply) as server:
        child = subprocess.Popen(interp_cmd() + ["eval", "tasks", *model_args(server), "--limit", "2",
                                                 "--out", str(tmp_path / "o")],
                                 env=interp_env["env"], cwd=interp_env["cwd"], text=True,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            with server_waits_for(server, 3):
                pass
            child.send_signal(signal.SIGINT)
            out, err = child.communicate(timeout=20)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
    assert child.returncode == 130, err
    assert "interrupted; results so far are in" in err and "Traceback" not in err
    assert [r["task_id"] for r in records(tmp_path / "o")] == ["stats-mean-median"]


class server_waits_for:
    """Wait (bounded) until the server has received `count` requests."""

    def __init__(self, server, count: int, guard: float = 120) -> None:
        self.server, self.count, self.guard = server, count, guard

    def __enter__(self):
        import time

        until = time.monotonic() + self.guard
        while len(self.server.requests) < self.count:
            assert time.monotonic() < until, "the run never reached the model"
            time.sleep(0.05)
        return self

    def __exit__(self, *exc):
        return False


@needs_xllamacpp
def test_the_small_model_runs_two_tasks_and_its_server_stops(interp_env, tmp_path, smol_gguf,
                                                              own_copy):
    model = own_copy(smol_gguf)
    done = run_interp(["eval", "tasks", "--local", str(model), "--limit", "2", "--max-turns", "2",
                       "--max-tokens", "64", "--json", "--out", str(tmp_path / "out")],
                      interp_env, timeout=600)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    (summary,) = out["summaries"]
    assert out["model"] == f"local-{model.stem}"
    assert summary["tasks"] == 2 and summary["model_errors"] == 0
    found = records(tmp_path / "out")
    assert [r["task_id"] for r in found] == ["stats-mean-median", "stats-top-product-q2"]
    assert all(r["completion_tokens"] > 0 and 1 <= r["model_calls"] <= 2 for r in found)
    assert servers_for(model) == []  # the server stopped with the run


def test_a_python_without_the_data_packages_is_named(interp_env, tmp_path):
    """Blocks run in INTERP_PYTHON; one that lacks the packages the tasks' solutions use is
    named in one line, and the run goes on."""
    bare = tmp_path / "bare-python"
    bare.write_text(f"#!/bin/sh\nexec {sys.executable} -I -S \"$@\"\n")
    bare.chmod(0o755)
    env = dict(interp_env, env={**interp_env["env"], "INTERP_PYTHON": str(bare)})
    with FakeOpenAI(default=Reply(text="I cannot tell.")) as server:
        done = run_interp(["eval", "tasks", *model_args(server), "--limit", "1", "--json",
                           "--out", str(tmp_path / "o")], env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (f"interp eval: {bare} lacks pandas, matplotlib, openpyxl, sympy; tasks whose "
            "solutions use them will fail there (pip install 'interp[data]')") in done.stderr
    assert json.loads(done.stdout)["summaries"][0]["tasks"] == 1


def test_ids_pick_the_tasks_to_run(interp_env, tmp_path):
    with FakeOpenAI(default=scripted("right")) as server:
        done = run_interp(["eval", "tasks", *model_args(server), "--ids",
                           "node-sum-json,stats-mean-median", "--json", "--out",
                           str(tmp_path / "o")], interp_env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert [r["task_id"] for r in records(tmp_path / "o")] == ["stats-mean-median", "node-sum-json"]
