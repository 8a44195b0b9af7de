"""`interp eval dabench` end to end: the real CLI, real litellm and runners, a scripted
OpenAI-compatible server, on a DABench-shaped folder written for the tests."""

from __future__ import annotations

import json

from dabench_kit import QUESTIONS, RIGHT, write_data
from fake_openai import FakeOpenAI, Reply
from helpers import model_args, run_interp


def text_of(message: dict) -> str:
    content = message.get("content") or ""
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)


def scripted(answer_in_format: bool):
    """A model that runs the question's right solution, then answers with its values: in the
    asked `@name[value]` form, or in words."""
    def reply(body: dict) -> Reply:
        messages = body["messages"]
        task = next(text_of(m) for m in messages if m["role"] == "user")
        qid = next(str(q["id"]) for q in QUESTIONS if q["question"] in task)
        code, answer = RIGHT[qid]
        if not any(m["role"] == "assistant" for m in messages):
            return Reply(text=f"```python\n{code}\n```\n")
        if answer_in_format:
            return Reply(text=f"The values are:\n{answer}")
        return Reply(text="The answer is " + answer.replace("@", "").replace("\n", ", ") + ".")
    return reply


def records(out) -> list[dict]:
    return [json.loads(line) for line in (out / "dabench.jsonl").read_text().splitlines()]


def test_answers_in_the_asked_form_score_right_and_a_rerun_resumes(interp_env, tmp_path):
    data, out = write_data(tmp_path / "data"), tmp_path / "out"
    args = ["eval", "dabench", "--data", str(data), "--json", "--out", str(out)]
    with FakeOpenAI(default=scripted(True)) as server:
        done = run_interp([*args, *model_args(server)], interp_env, timeout=300)
        calls = len(server.requests)
        again = run_interp([*args, *model_args(server)], interp_env, timeout=300)
        assert len(server.requests) == calls == 6  # two calls a question; the rerun asked nothing
    assert done.returncode == again.returncode == 0, done.stderr
    (summary,) = json.loads(done.stdout)["summaries"]
    assert (summary["questions"], summary["right"], summary["right_pct"]) == (3, 3, 100.0)
    assert (summary["subs"], summary["subs_right"], summary["formatted"]) == (4, 4, 3)
    assert summary["levels"] == {"easy": {"questions": 1, "right": 1},
                                 "medium": {"questions": 1, "right": 1},
                                 "hard": {"questions": 1, "right": 1}}
    assert summary["mean_calls"] == 2.0 and summary["exits"] == {"ok": 3}
    assert json.loads(again.stdout)["summaries"] == [summary]
    first = records(out)[0]
    assert first["task_id"] == "1" and first["subs"] == [["mean_price", "4.50", "4.5", True]]
    assert first["task"].splitlines() == [
        "What is the mean of the price column?", "Use all rows. Round to two decimal places.",
        "The data is in shop.csv.", "Give your final answer in exactly this format: "
        "@mean_price[value] where value is a number rounded to two decimal places."]
    assert first["prompt_tokens"] > 0 and first["seconds"] > 0 and first["turns"]


def test_values_stated_in_words_are_not_in_the_asked_form(interp_env, tmp_path):
    data, out = write_data(tmp_path / "data"), tmp_path / "out"
    with FakeOpenAI(default=scripted(False)) as server:
        done = run_interp(["eval", "dabench", "--data", str(data), "--out", str(out),
                           "--level", "easy,hard", *model_args(server)], interp_env, timeout=300)
    assert done.returncode == 0, done.stderr
    for text in ("dabench · openai/fake-model", "0.0% (0)", "format",
                 "by level (right of questions): easy 0/1, hard 0/1",
                 "right values shown somewhere in the run: 2 of 2", "ended: ok 2", "Results:"):
        assert text in done.stdout, done.stdout
    assert [r["task_id"] for r in records(out)] == ["1", "7"]
    assert all(not r["right"] and r["shown_right"] for r in records(out))


def test_flags_that_do_not_fit_are_one_line(interp_env, tmp_path):
    data = write_data(tmp_path / "data")
    with FakeOpenAI() as server:
        cases = {
            ("eval", "dabench"): "pass --data DIR",
            ("eval", "dabench", "--data", str(data), "--level", "expert"):
                "--level takes easy, medium, hard, not 'expert'",
            ("eval", "dabench", "--data", str(data), "--ids", "99"): "no question 99 in the data",
            ("eval", "dabench", "--data", str(tmp_path)): "No such file",
            ("eval", "dabench", "--data", str(data), "--feedback", "oracle"): "takes only self",
            ("eval", "humaneval", "--level", "easy"): "--ids and --level are for tasks and dabench",
            ("eval", "tasks", "--level", "easy"): "--level is dabench's",
            ("eval", "tasks", "--ids", "nope"): "--ids: no task nope",
        }
        for args, message in cases.items():
            done = run_interp([*args, *model_args(server)], interp_env, timeout=60)
            assert done.returncode == 2, (args, done.stderr)
            assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert server.requests == []
