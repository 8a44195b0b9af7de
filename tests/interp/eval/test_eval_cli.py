"""`interp eval` end to end: the real CLI, real litellm, a replay model on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fake_openai import FakeOpenAI, Reply
from helpers import model_args, run_interp
from interp.eval.data import load_problems
from local_fixtures import needs_xllamacpp, servers_for

PROBLEMS = load_problems("humaneval")


def _content(message: dict) -> str:
    content = message.get("content") or ""
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)


def problem_in(body: dict):
    """The HumanEval problem a request is about (its prompt is quoted in the first user message)."""
    first = next(_content(m) for m in body["messages"] if m["role"] == "user")
    return next(p for p in PROBLEMS if p.prompt.strip() in first)


def fenced(code: str) -> str:
    return f"Here you go:\n\n```python\n{code}\n```\n"


def right(problem) -> str:
    return problem.reference


def wrong(problem) -> str:
    return problem.prompt + "    return None\n"


def canonical(body: dict) -> Reply:
    """The replay model that always answers with the canonical solution."""
    return Reply(text=fenced(right(problem_in(body))))


def learner(body: dict) -> Reply:
    """Wrong at first; right once it has seen any execution result (oracle or its own runs)."""
    problem = problem_in(body)
    messages = body["messages"]
    if any("Execution result:" in _content(m) for m in messages if m["role"] == "user"):
        return Reply(text=fenced(right(problem)))  # oracle's second request
    answers = sum(m["role"] == "assistant" for m in messages)
    if answers == 0:
        return Reply(text=fenced(wrong(problem)))
    if answers == 1:
        return Reply(text="That returned None; fixed:\n\n" + fenced(right(problem)))
    return Reply(text="The examples pass now.")


def stubborn(body: dict) -> Reply:
    """Wrong in its own runs; right in its first answer to the hidden tests' failure."""
    problem = problem_in(body)
    messages = body["messages"]
    fed = [i for i, m in enumerate(messages)
           if m["role"] == "user" and "fails the hidden tests" in _content(m)]
    after = messages[fed[0]:] if fed else messages
    if not any(m["role"] == "assistant" for m in after):
        return Reply(text=fenced(right(problem) if fed else wrong(problem)))
    return Reply(text="The examples pass now.")


def evaluate(interp_env, server, *flags, timeout=600):
    done = run_interp(["eval", "humaneval", *model_args(server), "--json", *flags], interp_env,
                      timeout=timeout)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def records(folder: Path, mode: str) -> list[dict]:
    return [json.loads(line) for line in (folder / f"humaneval-{mode}.jsonl").read_text().splitlines()]


def test_the_canonical_solutions_score_164_of_164(interp_env, tmp_path):
    with FakeOpenAI(default=canonical) as server:
        out = evaluate(interp_env, server, "--feedback", "none", "--jobs", "2",
                       "--out", str(tmp_path / "out"))
    (summary,) = out["summaries"]
    failed = [(r["task_id"], r["reason"], r["error"], r["check"]) for r in records(tmp_path / "out", "none")
              if not r["passed"]]
    assert failed == []
    assert (summary["passed"], summary["problems"], summary["pass_at_1"]) == (164, 164, 100.0)
    assert summary["model_errors"] == summary["harness_errors"] == 0
    assert len(records(tmp_path / "out", "none")) == 164


def test_feedback_helps_in_self_oracle_and_oci_but_not_in_none(interp_env, tmp_path):
    out_dir = tmp_path / "out"
    with FakeOpenAI(default=learner) as server:
        out = evaluate(interp_env, server, "--feedback", "none,self", "--feedback", "oracle,oci",
                       "--limit", "3", "--out", str(out_dir))
        requests = server.requests
    assert all(r.get("temperature") == 0 and r.get("max_tokens") == 1024 for r in requests)
    by_mode = {s["mode"]: s for s in out["summaries"]}
    assert [by_mode[m]["passed"] for m in ("none", "self", "oracle", "oci")] == [0, 3, 3, 3]
    assert by_mode["oci"]["leaks_tests"] and not by_mode["self"]["leaks_tests"]
    assert "leaks test information" in out["note"]
    assert by_mode["none"]["mean_turns"] == 1 and by_mode["oci"]["mean_turns"] == 2
    assert by_mode["self"]["mean_turns"] == by_mode["oracle"]["mean_turns"] == 3
    assert by_mode["oracle"]["fed_back"] == 0  # its own runs fixed it: nothing was fed back

    oracle = records(out_dir, "oci")[0]
    assert oracle["first_check"]["passed"] is False and oracle["check"]["passed"] is True
    second = oracle["turns"][1]["request"]
    feedback = second.split("Execution result: \n", 1)[1]
    assert feedback.startswith("The results aren't as expected.\nInput: ")
    assert "Expected Output: True\nActual Output: None" in feedback and len(feedback) <= 501
    assert second.startswith(oracle["turns"][0]["request"] + "\n" + oracle["turns"][0]["reply"])

    for request in requests:  # self never sees the hidden tests
        if request["messages"][0]["role"] == "system":
            assert not any("Execution result" in _content(m) or "assert candidate" in _content(m)
                           for m in request["messages"])
    self_record = records(out_dir, "self")[0]
    assert self_record["passed"] and "return None" not in self_record["final_code"]
    assert any(m.get("role") == "assistant" for m in self_record["turns"])
    none_record = records(out_dir, "none")[0]
    assert none_record["reason"] == "wrong answer" and none_record["prompt_tokens"] > 0


def test_oracle_feeds_the_hidden_failure_to_the_loop_that_missed_it(interp_env, tmp_path):
    out_dir = tmp_path / "out"
    with FakeOpenAI(default=stubborn) as server:
        out = evaluate(interp_env, server, "--feedback", "self,oracle", "--limit", "2",
                       "--out", str(out_dir))
        requests = server.requests
    by_mode = {s["mode"]: s for s in out["summaries"]}
    assert (by_mode["self"]["passed"], by_mode["oracle"]["passed"]) == (0, 2)
    assert (by_mode["oracle"]["fed_back"], by_mode["oracle"]["fixed"]) == (2, 2)
    assert by_mode["oracle"]["leaks_tests"] and not by_mode["self"]["leaks_tests"]
    assert by_mode["self"]["mean_turns"] == 2 and by_mode["oracle"]["mean_turns"] == 4

    record = records(out_dir, "oracle")[0]
    assert record["first_check"]["passed"] is False and record["check"]["passed"] is True
    assert "return None" not in record["final_code"]
    users = [_content(m) for m in record["turns"] if m.get("role") == "user"]
    assert users[0].startswith("Complete this Python function")  # the same session goes on
    feedback = next(u for u in users if "Execution result:" in u)
    assert "Your `has_close_elements` fails the hidden tests" in feedback
    assert "Expected Output: True\nActual Output: None" in feedback
    assert "The call that failed: `has_close_elements([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3)`" in feedback
    fed = [r for r in requests if any("Execution result:" in _content(m) for m in r["messages"])]
    assert len(fed) == 4  # two calls in each problem's feedback round, none in self
    assert records(out_dir, "self")[0]["first_check"] == {}


def test_a_rerun_resumes_and_retries_model_errors(interp_env, tmp_path):
    out_dir = tmp_path / "out"
    with FakeOpenAI(default=canonical) as server:
        server.add(canonical)  # the first problem reaches the model (else the run stops at once)
        server.add(Reply(status=401))  # the second problem's call fails (not retried by litellm)
        first = evaluate(interp_env, server, "--limit", "3", "--out", str(out_dir))
        assert first["summaries"][0]["passed"] == 2
        assert first["summaries"][0]["model_errors"] == 1
        calls = len(server.requests)
        second = evaluate(interp_env, server, "--limit", "3", "--out", str(out_dir))
        assert len(server.requests) == calls + 1  # only the failed problem is asked again
        assert second["summaries"][0]["passed"] == 3
        assert second["summaries"][0]["model_errors"] == 0
        third = evaluate(interp_env, server, "--limit", "3", "--out", str(out_dir))
        assert len(server.requests) == calls + 1 and third["summaries"][0]["passed"] == 3


def test_the_table_names_the_modes_and_the_leak(interp_env, tmp_path):
    with FakeOpenAI(default=learner) as server:
        done = run_interp(["eval", "humaneval", *model_args(server), "--feedback", "oci",
                           "--limit", "1", "--out", str(tmp_path / "o")], interp_env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "oci *" in done.stdout and "100.0%" in done.stdout
    assert "oci: the hidden tests' failure fed back in 1 problem(s); 1 passed after it" in done.stdout
    assert "leaks test information" in done.stdout


@pytest.mark.parametrize("args, message", [
    (["--feedback", "sometimes"], "--feedback takes none, self, oracle, oci"),
    (["--limit", "0"], "must be at least 1"),
])
def test_bad_flags_are_one_clear_line(interp_env, fake_server, args, message):
    done = run_interp(["eval", "humaneval", *model_args(fake_server), *args], interp_env)
    assert done.returncode == 2
    assert done.stderr.strip() == f"interp eval: {message}" or message in done.stderr
    assert "Traceback" not in done.stderr


def test_mbpp_without_data_says_how_to_get_it(interp_env, fake_server):
    done = run_interp(["eval", "mbpp+", *model_args(fake_server)], interp_env)
    assert done.returncode == 2 and "--data PATH" in done.stderr and "Traceback" not in done.stderr


@needs_xllamacpp
def test_local_scores_two_modes_on_one_server_and_stops_it(interp_env, tmp_path, smol_gguf,
                                                          own_copy):
    """The second mode's problems reach the same server: it was not killed with the first
    mode's worker thread (PR_SET_PDEATHSIG follows the thread that forked it)."""
    model = own_copy(smol_gguf)
    done = run_interp(["eval", "humaneval", "--local", str(model), "--limit", "2", "--json",
                       "--feedback", "none,oci", "--max-tokens", "64",
                       "--out", str(tmp_path / "out")], interp_env, timeout=600)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["model"] == f"local-{model.stem}"
    assert [(s["mode"], s["problems"], s["scored"], s["model_errors"])
            for s in out["summaries"]] == [("none", 2, 2, 0), ("oci", 2, 2, 0)]
    for mode in ("none", "oci"):
        found = records(tmp_path / "out", mode)
        assert [r["task_id"] for r in found] == ["HumanEval/0", "HumanEval/1"]
        assert all(r["error"] is None and r["model_calls"] > 0 and r["completion_tokens"] > 0
                   for r in found), found
    assert done.stderr.count("Loading the local model") == 1, done.stderr  # loaded once
    assert "ready: context" in done.stderr and "loaded in" in done.stderr
    assert servers_for(model) == []  # the server stopped with the run


def test_local_without_a_model_file_is_one_clear_line(interp_env, tmp_path):
    done = run_interp(["eval", "humaneval", "--local", str(tmp_path / "missing.gguf"),
                       "--limit", "1"], interp_env, timeout=120)
    assert done.returncode == 2
    assert done.stderr.startswith("interp eval: ") and "missing.gguf" in done.stderr
    assert "Traceback" not in done.stderr
