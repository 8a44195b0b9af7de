"""Code proposed again: failed code is not run, the reply is retracted and the model asked
again with sampling (LocalModel's `retry_sampling`), as is a block cut off at the length limit
(`runaway_sampling`): the reply checks repeat-failed and cut-off. Real client, the fake
OpenAI server, real runners."""

from __future__ import annotations

from fake_openai import Reply
from session_kit import SamplingClient, finished, of, py, run

from interp.core import exits
from interp.core.checks.catalog import CHECKS
from interp.core.checks.reruns import CUT_OFF_NOTE, CUT_OFF_NOTICE

# Qwen2.5-Coder-1.5B asked to fix a script's crash (a real transcript, shortened): the same
# block, word for word, after each failure.
QWEN_SAME_FIX = ("The error is in the loop. Here is the corrected code:\n\n"
                 + py("rows = [{'price': '3.5'}, {'price': 'N/A'}]\n"
                      "total = sum(float(r['price']) for r in rows)\nprint(total)"))
FIXED = py("rows = [{'price': '3.5'}, {'price': 'N/A'}]\n"
           "total = sum(float(r['price']) for r in rows if r['price'] != 'N/A')\nprint(total)")


RESAMPLES = next(c.asks for c in CHECKS if c.name == "repeat-failed")
CUT_OFFS = next(c.asks for c in CHECKS if c.name == "cut-off")


class Sampled(SamplingClient):
    """The client model declaring `retry_sampling`, as LocalModel does."""

    retry_sampling = {"temperature": 0.7}


def told(server, index):
    return server.requests[index]["messages"][-1]["content"]


def notices(events, level="info"):
    return [n["text"] for n in of(events, "notice") if n["level"] == level]


def test_failed_code_proposed_again_is_asked_again_with_sampling(server, make_session):
    server.script([QWEN_SAME_FIX, QWEN_SAME_FIX, FIXED, "The total is 3.5."])
    events = run(make_session(server, tools="off", model_cls=Sampled), "fix the total")
    assert finished(events) == {"exit_code": 0, "reason": "done"}
    assert [e["status"] for e in of(events, "block.finished")] == ["error", "ok"]
    assert notices(events) == ["The model proposed the code of block 1 again, which failed; it "
                               "was not run. Asking again with sampling."]
    assert [n.get("check") for n in of(events, "notice")] == ["repeat-failed"]
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
    assert len(notices(events)) == RESAMPLES + 1  # asked again, then for the answer
    assert [r.get("seed") for r in server.requests[:RESAMPLES + 2]] == [None, None, *range(1, RESAMPLES + 1)]


def test_failed_code_is_asked_again_once_a_task_and_then_runs_again(server, make_session):
    """One sampled retry a task: DABench showed further retries of the same failing code
    rescued nothing and doubled a question's time."""
    server.script([QWEN_SAME_FIX] * 3 + ["It fails."])
    events = run(make_session(server, tools="off", model_cls=Sampled), "fix the total")
    assert [e["status"] for e in of(events, "block.finished")] == ["error", "error"]
    assert [r.get("temperature") for r in server.requests] == [None, None, 0.7, None]
    assert [r.get("seed") for r in server.requests] == [None, None, 1, None]
    assert len(notices(events)) == RESAMPLES == 1
    assert "this is the same code as your previous run, and it failed again" in told(server, 3)


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


def test_the_same_code_again_runs_until_the_loop_guard_asks_for_the_answer(server, make_session):
    server.script([py("print(5)")] * 3 + ["It is 5."])
    events = run(make_session(server, tools="off"), "What is it?")
    assert len(of(events, "block.finished")) == 3  # then asked for the answer, as before


def test_a_block_whose_last_print_printed_an_empty_line_is_checked(server, make_session):
    """A block's checks ending with a print of an empty string: the runner's output ends with
    that empty line, and each print still lines up with its comment (own-expectation)."""
    same = py('def reverse(s):\n    return s\n\nprint(reverse("ab"))  # Output: "ba"\n'
              'print(reverse(""))  # Output: ""')
    server.script([same, "reverse is done."])
    run(make_session(server, tools="off"), 'Write reverse: reverse("ab") is "ba".')
    assert 'printed `ab` but its comment expects `"ba"`' in told(server, 1)


def test_a_copied_report_is_asked_again_with_sampling(server, make_session):
    echo = ("[Block 1, python]\nOutput:\n```\n775.92\n```\nResult: ok.")
    server.script([py("print(775.92)"), echo, "The average is 775.92."])
    events = run(make_session(server, tools="off", model_cls=Sampled), "What is the average?")
    assert finished(events) == {"exit_code": 0, "reason": "done"}
    assert [r.get("temperature") for r in server.requests] == [None, None, 0.7]


# Qwen2.5-Coder-1.5B writing a function (a real transcript): the docstring ran away
# (`>>> parse_music('o|o|o|o|...`) to the length limit, and asked to send it shorter, greedy
# decoding wrote the same block to the same limit, three times.
RUNAWAY = ("```python\ndef parse_music(music_string: str) -> list:\n    \"\"\" Notes to beats.\n"
           "    >>> parse_music('o')\n    [4]\n    >>> parse_music('" + "o|" * 40)


class RunsAway(Sampled):
    """A client model declaring `runaway_sampling` too, as LocalModel does."""

    runaway_sampling = {"temperature": 0.7, "dry_multiplier": 0.8}


def test_a_block_cut_off_at_the_length_limit_is_retracted_and_asked_again(server, make_session):
    server.script([Reply(text=RUNAWAY, finish_reason="length"),
                   py("print(len('o o|'.split()))"), "2 notes."])
    session = make_session(server, tools="off", model_cls=RunsAway)
    events = run(session, "count the notes")
    assert finished(events) == {"exit_code": 0, "reason": "done"}
    assert notices(events) == [CUT_OFF_NOTICE]
    assert [e["status"] for e in of(events, "block.finished")] == ["ok"]  # the cut-off: not run
    again = server.requests[1]
    assert (again["temperature"], again["dry_multiplier"], again["seed"]) == (0.7, 0.8, 1)
    assert [m["role"] for m in again["messages"]] == ["system", "user"]  # the runaway: not sent
    assert again["messages"][-1]["content"] == f"count the notes\n\n{CUT_OFF_NOTE}"
    assert [r.get("dry_multiplier") for r in server.requests] == [None, 0.8, None]
    assert RUNAWAY in [m.content for m in session.messages]  # kept, as everything received


def test_a_block_cut_off_again_past_the_limit_is_reported(server, make_session):
    runaway = Reply(text=RUNAWAY, finish_reason="length")
    server.script([runaway] * (CUT_OFFS + 1) + ["I could not finish it."])
    events = run(make_session(server, tools="off", model_cls=RunsAway), "count the notes")
    assert len(notices(events)) == CUT_OFFS
    assert [r.get("seed") for r in server.requests] == [None, 1, 2, 3, 4, None]
    assert told(server, 5).endswith("Your reply was cut off at the length limit inside this "
                                    "block, so the block was not run. Write the code again, "
                                    "shorter.")


def test_without_runaway_sampling_a_cut_off_block_is_reported(server, make_session):
    server.script([Reply(text=RUNAWAY, finish_reason="length"), "I could not finish it."])
    run(make_session(server, tools="off", model_cls=Sampled), "count the notes")
    assert [r.get("temperature") for r in server.requests] == [None, None]
    assert told(server, 1).endswith("Write the code again, shorter.")
