"""A greedy model that proposes its failed code again is not run: the reply is retracted and
the model asked again with sampling (LocalModel's `retry_sampling`). Real client, the fake
OpenAI server, real runners."""

from __future__ import annotations

from session_kit import finished, of, py, run

from interp.core import exits
from interp.core.loops import RESAMPLES
from interp.models.reach import model_for

# Qwen2.5-Coder-1.5B on fixing-report-crash (interp eval tasks, 2026-11-27): the same block,
# word for word, after each failure (shortened).
QWEN_SAME_FIX = ("The error is in the loop. Here is the corrected code:\n\n"
                 + py("rows = [{'price': '3.5'}, {'price': 'N/A'}]\n"
                      "total = sum(float(r['price']) for r in rows)\nprint(total)"))
FIXED = py("rows = [{'price': '3.5'}, {'price': 'N/A'}]\n"
           "total = sum(float(r['price']) for r in rows if r['price'] != 'N/A')\nprint(total)")


class Sampled:
    """The client model declaring `retry_sampling`, as LocalModel does: a call's sampling
    goes into that request's parameters."""

    retry_sampling = {"temperature": 0.7}

    def __init__(self, name, **options) -> None:
        self.inner = model_for(name, **options)
        self.name = self.inner.name

    def stream(self, messages, tools=None, *, sampling=None):
        self.inner.params = dict(sampling or {})
        return self.inner.stream(messages, tools)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def notices(events, level="info"):
    return [n["text"] for n in of(events, "notice") if n["level"] == level]


def test_failed_code_proposed_again_is_asked_again_with_sampling(server, make_session):
    server.script([QWEN_SAME_FIX, QWEN_SAME_FIX, FIXED, "The total is 3.5."])
    events = run(make_session(server, tools="off", model_cls=Sampled), "fix the total")
    assert finished(events) == {"exit_code": 0, "reason": "done"}
    assert [e["status"] for e in of(events, "block.finished")] == ["error", "ok"]
    assert notices(events) == ["The model proposed the failing code of block 1 again; it was "
                               "not run. Asking again with sampling (temperature 0.7)."]
    assert [r.get("temperature") for r in server.requests] == [None, None, 0.7, None]
    assert server.requests[2]["seed"] == 1
    sent = server.requests[2]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]  # retracted
    assert sent[-1]["content"].endswith(
        "Note: your last reply proposed the code of block 1 again, which failed on line 2: "
        "`total = sum(float(r['price']) for r in rows)`; it was not run. Write changed code "
        "that avoids that error.")
    replied = of(events, "message")
    assert replied[1]["blocks"] == [] and not replied[1]["final"]


def test_asking_again_stops_after_the_limit_and_the_loop_guard_takes_over(server, make_session):
    server.default = QWEN_SAME_FIX
    events = run(make_session(server, tools="off", model_cls=Sampled, max_turns=12), "fix it")
    assert finished(events)["exit_code"] == exits.LOOP
    assert len(notices(events)) == RESAMPLES + 1  # asked again twice, then for the answer
    assert [r.get("seed") for r in server.requests[:4]] == [None, None, 1, 2]


def test_failed_code_runs_again_after_a_block_that_did_not_fail(server, make_session):
    """An install between two runs of the same code: the second run may work."""
    server.script([QWEN_SAME_FIX, py("print('installed')"), QWEN_SAME_FIX, "It fails."])
    events = run(make_session(server, tools="off", model_cls=Sampled), "fix the total")
    assert [e["status"] for e in of(events, "block.finished")] == ["error", "ok", "error"]
    assert not notices(events)


def test_a_model_without_retry_sampling_runs_it_again(server, make_session):
    server.script([QWEN_SAME_FIX, QWEN_SAME_FIX, "It fails."])
    events = run(make_session(server, tools="off"), "fix the total")
    assert [e["status"] for e in of(events, "block.finished")] == ["error", "error"]
    assert all("temperature" not in r for r in server.requests)
