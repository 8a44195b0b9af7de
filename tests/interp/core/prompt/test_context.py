import pytest
"""fit_messages with a simple chars/4 counter."""

import json

from interp.core.prompt.context import TRIMMED, Fitted, default_is_output, fit_messages

pytestmark = pytest.mark.fast  # pure units: no process, pty or server (see conftest.py)


def count(messages):
    return sum(len(json.dumps(m)) for m in messages) // 4


def system(text="You are a helpful agent."):
    return {"role": "system", "content": text}


def user(text):
    return {"role": "user", "content": text}


def assistant_call(call_id, code="print(1)"):
    call = {"id": call_id, "type": "function", "function": {"name": "execute", "arguments": json.dumps({"code": code})}}
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def tool(call_id, text):
    return {"role": "tool", "tool_call_id": call_id, "content": text}


def conversation(turns=4, output_size=2000):
    msgs = [system()]
    for t in range(turns):
        msgs += [user(f"task {t}"), assistant_call(f"c{t}"), tool(f"c{t}", f"{t}" * output_size),
                 {"role": "assistant", "content": f"done with {t}"}]
    return msgs


def assert_consistent(msgs):
    """Every tool message follows its assistant call, and every call has its results."""
    calls = {}
    for i, m in enumerate(msgs):
        for c in m.get("tool_calls") or ():
            calls[c["id"]] = i
    answered = {m["tool_call_id"] for m in msgs if m.get("role") == "tool"}
    assert answered == set(calls), (answered, calls)
    for i, m in enumerate(msgs):
        if m.get("role") == "tool":
            assert calls[m["tool_call_id"]] < i


def test_fits_already_returns_equal_copy():
    msgs = conversation(2, 10)
    fitted = fit_messages(msgs, 10_000, count)
    assert fitted == Fitted(msgs, 0, 0, True) and fitted.messages is not msgs


def test_trims_oldest_outputs_first_and_only_as_needed():
    msgs = conversation(4)
    original = json.dumps(msgs)
    budget = count(msgs) - 900  # one trimmed 2000-char output saves ~500 tokens
    fitted = fit_messages(msgs, budget, count)
    assert (fitted.trimmed, fitted.dropped, fitted.fits) == (2, 0, True)
    tools = [m for m in fitted.messages if m["role"] == "tool"]
    assert [t["content"] == TRIMMED for t in tools] == [True, True, False, False]
    assert all("tool_call_id" in t for t in tools)
    assert count(fitted.messages) <= budget and len(fitted.messages) == len(msgs)
    assert json.dumps(msgs) == original  # input untouched


def test_short_outputs_are_not_trimmed():
    msgs = [system(), user("go"), assistant_call("a"), tool("a", "ok"), user("again")]
    fitted = fit_messages(msgs, count(msgs) - 5, count)
    assert fitted.trimmed == 0 and fitted.dropped > 0


def test_drops_oldest_after_trimming_and_keeps_pairs():
    msgs = conversation(6)
    all_trimmed = [dict(m, content=TRIMMED) if m["role"] == "tool" else m for m in msgs]
    budget = count(all_trimmed) - 100  # trimming every output is not enough
    fitted = fit_messages(msgs, budget, count)
    out = fitted.messages
    assert fitted.fits and count(out) <= budget and fitted.dropped > 0
    assert out[0] == msgs[0] and out[-1] == msgs[-1]
    assert user("task 5") in out
    assert_consistent(out)
    assert len(out) + fitted.dropped == len(msgs)
    assert fitted.trimmed == sum(m.get("content") == TRIMMED for m in out)


def test_never_orphans_tool_messages_at_any_budget():
    msgs = conversation(5, 300)
    msgs.insert(3, tool("c0", "second result for the same call " * 3))  # two results for one call
    for budget in range(0, count(msgs) + 1, 37):
        fitted = fit_messages(msgs, budget, count)
        assert_consistent(fitted.messages)
        assert fitted.fits == (count(fitted.messages) <= budget)


def test_impossible_budget_returns_protected_set():
    msgs = conversation(3)
    fitted = fit_messages(msgs, 1, count)
    assert fitted.messages == [msgs[0], user("task 2")]
    assert not fitted.fits and fitted.dropped == len(msgs) - 2 and fitted.trimmed == 0


def test_task_index_protects_that_message():
    msgs = conversation(3)
    msgs.append(user("thanks!"))  # a later user message that is not the task
    fitted = fit_messages(msgs, 1, count, task_index=5)
    assert fitted.messages == [msgs[0], msgs[5]]
    assert fit_messages(msgs, 1, count, task_index=-1).messages == [msgs[0], user("thanks!")]


def test_without_keep_last_user_only_system_survives():
    msgs = conversation(2)
    assert fit_messages(msgs, 1, count, keep_last_user=False).messages == [msgs[0]]


def test_output_marker_messages_are_trimmed_and_grouped_with_their_code():
    big = "x" * 3000
    msgs = [system(), user("task"), {"role": "assistant", "content": "```python\nprint('x')\n```"},
            {"role": "user", "content": big},
            {"role": "assistant", "content": "ok"}, user("next task")]
    outputs = [False, False, False, True, False, False]  # the history's output flags
    fitted = fit_messages(msgs, count(msgs) - 100, count, outputs=outputs)
    assert fitted.trimmed == 1 and fitted.messages[3]["content"] == TRIMMED
    assert fitted.kept == (0, 1, 2, 3, 4, 5)
    tiny = fit_messages(msgs, count([msgs[0], msgs[4], msgs[5]]), count, outputs=outputs)
    assert tiny.messages == [msgs[0], msgs[4], msgs[5]] and tiny.dropped == 3
    assert tiny.kept == (0, 4, 5)


def test_custom_output_predicate_and_image_content():
    image = [{"type": "image_url", "image_url": {"url": "data:image/png;base64," + "A" * 4000}}]
    msgs = [system(), user("look"), {"role": "user", "content": image, "kind": "out"}, user("now")]
    fitted = fit_messages(msgs, count(msgs) - 100, count, is_output=lambda m: m.get("kind") == "out")
    assert fitted.trimmed == 1 and fitted.messages[2]["content"] == TRIMMED


def test_multiple_leading_system_messages_are_kept():
    msgs = [system("a"), system("b"), user("old " * 200), {"role": "assistant", "content": "y" * 800}, user("new")]
    fitted = fit_messages(msgs, count(msgs[:2] + msgs[-1:]), count)
    assert fitted.messages == msgs[:2] + msgs[-1:] and fitted.fits


def test_default_is_output():
    assert default_is_output({"role": "tool", "content": ""})
    assert default_is_output({"role": "user", "name": "output", "content": ""})
    assert not default_is_output({"role": "user", "content": "hi"})


def test_count_calls_are_logarithmic():
    msgs = conversation(64, 200)
    calls = []

    def counting(m):
        calls.append(1)
        return count(m)

    fitted = fit_messages(msgs, count(msgs) // 4, counting)
    assert fitted.fits and len(calls) < 30
