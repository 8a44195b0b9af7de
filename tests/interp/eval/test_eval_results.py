"""Result records, resuming, summaries, and the self mode's final code."""

from __future__ import annotations

import pytest

from interp.core.history import Entry
from interp.eval.data import load_problems
from interp.eval.modes import final_code
from interp.eval.report import summarize
from interp.eval.results import Outcome, Record, ResultStore, Spend
from interp.eval.scoring import Verdict
from interp.models.base import Usage

pytestmark = pytest.mark.fast  # pure units: no process, pty or server (see conftest.py)


def _record(task_id: str, passed: bool, error: str | None = None, cost: float | None = 0.5) -> Record:
    spend = Spend(prompt_tokens=10, completion_tokens=5, cost=cost, calls=2)
    verdict = None if error else Verdict(passed, "" if passed else "wrong answer", "", 0.1)
    outcome = Outcome(turns=[], spend=spend, final_code="x = 1", verdict=verdict, error=error)
    return Record.build(task_id, "humaneval", "none", "m", "prompt", outcome.finish(2.0))


def test_the_latest_record_per_task_wins_and_a_torn_line_is_skipped(tmp_path):
    store = ResultStore(tmp_path, "humaneval+", "self")
    store.append(_record("A", False, error="connection refused"))
    store.append(_record("A", True))
    store.append(_record("B", False))
    with store.path.open("a") as handle:
        handle.write('{"task_id": "C", "pass')  # a run killed mid-write
    found = store.load()
    assert store.path.name == "humaneval+-self.jsonl"
    assert sorted(found) == ["A", "B"]
    assert found["A"].passed and found["A"].finished
    assert not _record("D", False, error="boom").finished


def test_the_summary_leaves_model_errors_out_of_the_rate_and_unknown_cost_unknown():
    records = [_record("A", True), _record("B", False), _record("C", False, error="timeout")]
    summary = summarize("humaneval", "none", "m", records)
    assert (summary.passed, summary.scored, summary.problems, summary.pass_at_1) == (1, 2, 3, 50.0)
    assert summary.model_errors == 1 and summary.mean_turns == 2
    assert summary.reasons == {"wrong answer": 1}
    assert summary.cost == 1.5
    assert summarize("humaneval", "none", "m", records + [_record("D", True, cost=None)]).cost is None


def test_spend_adds_usage_and_loses_the_cost_once_one_is_unknown():
    spend = Spend()
    spend.add(Usage(100, 20, 0.01))
    spend.add(Usage(50, 10, None))
    assert (spend.prompt_tokens, spend.completion_tokens, spend.calls, spend.cost) == (150, 30, 2, None)


def test_the_self_modes_final_code_is_its_blocks_with_later_definitions_winning():
    problem = load_problems("humaneval")[2]  # truncate_number
    blocks = ["def truncate_number(number: float) -> float:\n    return 0.0\n",
              "print(truncate_number(3.5))",
              "def truncate_number(number: float) -> float:\n    return number % 1.0\n",
              "this is not python ("]
    code = final_code(problem, blocks, [])
    assert code.count("def truncate_number") == 1 and "number % 1.0" in code


def test_the_self_modes_final_code_falls_back_to_the_last_reply():
    problem = load_problems("humaneval")[2]
    messages = [Entry({"role": "assistant",
                       "content": "Final:\n```\ndef truncate_number(number):\n    return number % 1.0\n```"})]
    assert "number % 1.0" in final_code(problem, ["x = 1"], messages)
