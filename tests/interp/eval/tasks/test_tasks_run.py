"""Tasks run through interp's own loop (real runners, the sandbox, real litellm) against a
scripted OpenAI-compatible server: a right run scores right, a wrong one does not."""

from __future__ import annotations

import tempfile

import pytest

from fake_openai import FakeOpenAI, Reply
from task_replies import scripted
from interp.eval.loop import LoopConfig
from interp.eval.tasks.catalog import TASKS
from interp.eval.tasks.command import TaskPlan, run_plan
from interp.eval.tasks.files import sandbox_works
from interp.models.reach import model_for

pytest.importorskip("matplotlib")
BY_ID = {t.id: t for t in TASKS}


def plan_for(ids, tmp_path, turns=4) -> TaskPlan:
    return TaskPlan(tasks=tuple(BY_ID[i] for i in ids), out=tmp_path / "out", model_name="fake",
                    config=LoopConfig(turns=turns, sandbox=sandbox_works()))


CHECKED = ("charts-revenue-by-region", "node-sum-json", "conversion-csv-to-xlsx")


def test_right_runs_score_right_with_a_clean_finish(tmp_path):
    with FakeOpenAI(default=scripted("right")) as server:
        model = model_for("openai/fake-model", api_base=server.api_base, api_key="sk-test-1234567",
                          params={"temperature": 0})
        summary = run_plan(plan_for(CHECKED, tmp_path), model)
    records = [line for line in (tmp_path / "out" / "tasks.jsonl").read_text().splitlines()]
    assert (summary.tasks, summary.right, summary.clean) == (3, 3, 3), records
    assert summary.mean_calls == 2 and summary.exits == {"ok": 3}
    assert summary.prompt_tokens > 0 and summary.completion_tokens > 0
    assert summary.categories["charts"] == {"tasks": 1, "right": 1, "clean": 1}


def test_two_runs_of_a_task_send_the_same_prompt(tmp_path, monkeypatch):
    """The prompt names the task's files by their path: a random folder made every greedy run
    of the benchmark a different prompt (2026-11-27)."""
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))  # no other test's run here
    with FakeOpenAI(default=scripted("right")) as server:
        model = model_for("openai/fake-model", api_base=server.api_base, api_key="sk-test-1234567",
                          params={"temperature": 0})
        for out in ("one", "two"):
            run_plan(plan_for(["stats-mean-median"], tmp_path / out), model)
    first = [r["messages"] for r in server.requests if r["messages"][-1]["role"] == "user"
             and "Attached files" in str(r["messages"][-1]["content"])]
    assert len(first) == 2 and first[0] == first[1]
    assert f"{tmp_path}/tmp/interp-task-stats-mean-median/work/students.csv" in str(first[0])
    assert list((tmp_path / "tmp").iterdir()) == []  # removed after each run


def test_wrong_runs_say_what_failed_and_a_rerun_skips_finished_tasks(tmp_path):
    with FakeOpenAI(default=scripted("wrong")) as server:
        model = model_for("openai/fake-model", api_base=server.api_base, api_key="sk-test-1234567",
                          params={"temperature": 0})
        plan = plan_for(CHECKED, tmp_path)
        summary = run_plan(plan, model)
        calls = len(server.requests)
        again = run_plan(plan, model)
        assert len(server.requests) == calls  # nothing ran again
    assert (summary.right, summary.clean) == (0, 0)
    assert again == summary
    from interp.eval.tasks.results import TaskStore

    records = TaskStore(tmp_path / "out").load()
    assert "not one per region" in records["charts-revenue-by-region"].failed[0]
    assert records["node-sum-json"].failed == ["no node block ran"]
    assert "not one named Orders" in records["conversion-csv-to-xlsx"].failed[0]
    chart = records["charts-revenue-by-region"]
    assert chart.exit_code == 0 and chart.final_message.startswith("Done.") and chart.model_calls == 2
    assert "sales.csv" in chart.files and "revenue.png" in chart.files
    assert [m["role"] for m in chart.turns][:2] == ["user", "assistant"]


def test_a_run_without_a_final_answer_is_right_but_not_clean(tmp_path):
    """The model prints the right result but never answers: --max-turns ends it (exit 3)."""
    task = BY_ID["equations-quadratic"]
    code = f"```python\n{task.right.code}\n```"
    with FakeOpenAI(default=Reply(text=code)) as server:
        model = model_for("openai/fake-model", api_base=server.api_base, api_key="sk-test-1234567",
                          params={"temperature": 0})
        summary = run_plan(plan_for([task.id], tmp_path, turns=2), model)
    assert (summary.right, summary.clean) == (1, 0)
    assert summary.exits in ({"max turns": 1}, {"loop": 1})
