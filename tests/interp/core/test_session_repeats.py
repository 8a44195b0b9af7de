"""Code proposed again: failed code is not run, the reply is retracted and the model asked
again with sampling (LocalModel's `retry_sampling`), as is a block cut off at the length limit
(`runaway_sampling`); code with the same output again, after the repeat note, below an answer,
is not run and the answer stands. Real client, the fake OpenAI server, real runners."""

from __future__ import annotations

from fake_openai import Reply
from session_kit import finished, of, py, run

from interp.core import exits
from interp.core.loops import CUT_OFF_NOTE, CUT_OFF_NOTICE, RESAMPLES, RESAMPLES_PER_TASK
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
                               "was not run. Asking again with sampling (temperature 0.7)."]
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


# Qwen2.5-Coder-1.5B on fixing-summary-keyerror (interp eval tasks, 2026-11-28): the note
# gave line 8 with "quantity", and the model proposed its block again, word for word; asked
# again with only the note, 2 of 6 sampled replies changed the line, with the block as the
# note has it 6 of 6 (replays of that record).
QWEN_QTY = ("The `warehouse` key is not present in the `stock.csv` file.\n\n" + py(
    'import csv\nfrom collections import defaultdict\n\ntotals = defaultdict(int)\n'
    'with open("stock.csv") as handle:\n    for row in csv.DictReader(handle):\n'
    '        if "warehouse" in row:\n            totals[row["warehouse"]] += int(row["qty"])\n'
    'print("grand total:", sum(totals.values()))'))


STOCK = "item,warehouse,quantity\nbolt,north,3\n"


def fenced(reply: str) -> str:
    """The code of a reply's python block."""
    return reply.split("```python\n")[1].split("```")[0].strip()


def shown(index: int, how: str, reply: str) -> str:
    """The end of a note that shows block `index` as it would read `how`: `reply`'s block."""
    return (f"Block {index} as it would read {how} (not run yet: reply with it in a ```python "
            f"block to run it):\n```python\n{fenced(reply)}\n```")


def test_failed_code_asked_again_comes_with_the_line_the_note_suggests(server, make_session):
    session = make_session(server, tools="off", model_cls=Sampled)
    (make_session.work / "stock.csv").write_text(STOCK)
    server.script([QWEN_QTY, QWEN_QTY, QWEN_QTY.replace('"qty"', '"quantity"'), "It is 3."])
    events = run(session, "fix it and tell me the grand total")
    assert [e["status"] for e in of(events, "block.finished")] == ["error", "ok"]
    assert told(server, 2).endswith(
        "failed on line 8: `totals[row[\"warehouse\"]] += int(row[\"qty\"])`; it was not run. "
        "Write changed code that avoids that error.\n"
        + shown(1, "with line 8 as the error's note suggests",
                QWEN_QTY.replace('"qty"', '"quantity"')))


def test_the_report_of_a_failed_block_comes_with_the_line_the_note_suggests(server,
                                                                            make_session):
    (make_session.work / "stock.csv").write_text(STOCK)
    fixed = QWEN_QTY.replace('"qty"', '"quantity"')
    server.script([QWEN_QTY, fixed, "The grand total is 3."])
    events = run(make_session(server, tools="off"), "fix it and tell me the grand total")
    assert [e["status"] for e in of(events, "block.finished")] == ["error", "ok"]
    assert told(server, 1).endswith(
        "The code failed, so the task is not done yet. Fix the error and run the code again.\n"
        + shown(1, "with line 8 as the error's note suggests", fixed))
    assert "Block 2 as it would read" not in told(server, 2)  # it ran


# The same model in the terminal (2026-11-28), on the same files: it tested `"qty" in row`,
# which skipped every row, and proposed that block again after the note on the empty table.
QWEN_QTY_SKIPS = py(
    'import csv\nfrom collections import defaultdict\n\ntotals = defaultdict(int)\n'
    'with open("stock.csv") as handle:\n    for row in csv.DictReader(handle):\n'
    '        if "warehouse" in row and "qty" in row:\n'
    '            totals[row["warehouse"]] += int(row["qty"])\n'
    'with open("totals.csv", "w", newline="") as handle:\n'
    '    writer = csv.writer(handle)\n    writer.writerow(["warehouse", "total"])\n'
    '    for name, total in sorted(totals.items()):\n        writer.writerow([name, total])\n'
    'print("grand total:", sum(totals.values()))')


def test_code_that_skipped_every_row_asked_again_comes_with_the_columns_keys(server,
                                                                            make_session):
    session = make_session(server, tools="off", model_cls=Sampled)
    (make_session.work / "stock.csv").write_text(STOCK)
    fixed = QWEN_QTY_SKIPS.replace('"qty"', '"quantity"')
    server.script([QWEN_QTY_SKIPS, QWEN_QTY_SKIPS, fixed, "The grand total is 3."])
    events = run(session, "Write the total quantity per warehouse in stock.csv to totals.csv")
    assert [e["status"] for e in of(events, "block.finished")] == ["ok", "ok"]
    assert told(server, 2).endswith(
        "it was not run. Write changed code that does it.\n"
        + shown(1, "with 'quantity' for 'qty'", fixed))
    assert (make_session.work / "totals.csv").read_text().splitlines()[1] == "north,3"


def test_asking_again_stops_after_the_limit_and_the_loop_guard_takes_over(server, make_session):
    server.default = QWEN_SAME_FIX
    events = run(make_session(server, tools="off", model_cls=Sampled, max_turns=12), "fix it")
    assert finished(events)["exit_code"] == exits.LOOP
    assert len(notices(events)) == RESAMPLES + 1  # asked again twice, then for the answer
    assert [r.get("seed") for r in server.requests[:4]] == [None, None, 1, 2]


# Qwen2.5-Coder-1.5B on conversion-xlsx-to-csv (2026-11-28): asked again twice for block 1,
# it wrote a second failing block, and then proposed that one again, word for word (shortened).
QWEN_SECOND_FIX = py("import pandas as pd\ndf = pd.DataFrame({'Amount': [1]})\n"
                     "df_2024.to_csv('out.csv', index=False)")


def test_each_failed_block_is_asked_again_up_to_the_limit(server, make_session):
    server.script([QWEN_SAME_FIX] * 3 + [QWEN_SECOND_FIX] * 3 + ["It fails."])
    events = run(make_session(server, tools="off", model_cls=Sampled), "fix the total")
    assert [e["status"] for e in of(events, "block.finished")] == ["error", "error"]
    assert [r.get("seed") for r in server.requests] == [None, None, 1, 2, None, 3, 4]
    assert len(notices(events)) == RESAMPLES_PER_TASK == 2 * RESAMPLES
    assert "proposed the code of block 2 again" in told(server, 6)


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


# Qwen2.5-Coder-1.5B on matrices-determinant-inverse (interp eval tasks, 2026-11-28): its
# answer, then the block that had printed it, three times (shortened).
QWEN_ANSWER_AND_AGAIN = ("The determinant of the matrix is \\(-24\\).\n\nTo find the inverse "
                         "of the matrix, we can use the `numpy` library.\n\n"
                         + py("print('Determinant:', -23.999999999999993)"))


def test_an_answer_above_the_same_code_again_after_the_repeat_note_is_the_answer(
        server, make_session):
    server.script([QWEN_ANSWER_AND_AGAIN] * 3 + ["unused"])
    events = run(make_session(server, tools="off"), "What is the determinant?")
    assert finished(events) == {"exit_code": 0, "reason": "done"}
    assert len(of(events, "block.finished")) == 2 and len(server.requests) == 3
    assert "Note: this is the same code with the same output" in told(server, 2)
    assert notices(events)[-1] == ("The reply states its answer, then proposes the same code "
                                   "with the same output again; the code was not run, and the "
                                   "reply is taken as the answer.")
    assert of(events, "message")[-1]["final"]


def test_the_same_code_again_without_an_answer_above_it_runs(server, make_session):
    server.script([py("print(5)")] * 3 + ["It is 5."])
    events = run(make_session(server, tools="off"), "What is it?")
    assert len(of(events, "block.finished")) == 3  # then asked for the answer, as before


def test_code_whose_file_does_not_do_the_task_proposed_again_is_asked_again(server, make_session):
    """Qwen2.5-Coder-1.5B on pivot-mean-grades (2026-11-28) wrote its grouped Series as the
    pivot, was told the pivot lacks the subject columns, and proposed the same block twice."""
    (make_session.work / "grades.csv").write_text("class,subject,grade\nRed,math,3\nBlue,art,4\n")
    series = py("import pandas as pd\ndf = pd.read_csv('grades.csv')\n"
                "df.groupby(['class', 'subject'])['grade'].mean().to_csv('pivot.csv', index=False)")
    pivot = py("import pandas as pd\ndf = pd.read_csv('grades.csv')\n"
               "df.pivot_table(index='class', columns='subject', values='grade').to_csv('pivot.csv')")
    server.script([series, series, pivot, "Saved."])
    events = run(make_session(server, tools="off", model_cls=Sampled),
                 "From grades.csv, save the average grade per class (rows) and subject (columns) "
                 "to pivot.csv.")
    assert [e["status"] for e in of(events, "block.finished")] == ["ok", "ok"]
    assert notices(events)[-1] == ("The model proposed the code of block 1 again, which did not "
                                   "do the task; it was not run. Asking again with sampling "
                                   "(temperature 0.7).")
    assert told(server, 2).endswith("which ran but did not do what the task asks (see the note "
                                    "above); it was not run. Write changed code that does it.")
    assert "Not done yet: the task asks for the subject values as columns" in told(server, 2)
    assert server.requests[2]["temperature"] == 0.7
    assert "Not done yet" not in told(server, 3)  # the pivot has the subject columns


# Qwen2.5-Coder-1.5B on HumanEval/37 (`--feedback self`, 85b00b8), shortened: told its print
# differs from its comment, it sent the same block again; it ran, and the repeat note asked
# for its final answer ("The output matches the expected result.").
SORT_EVEN = py("def sort_even(l):\n    odd = sorted(l[1::2])\n"
               "    return [l[i] if i % 2 == 0 else odd[i // 2] for i in range(len(l))]\n\n"
               "print(sort_even([5, 6, 3, 4]))  # Output: [3, 6, 5, 4]")
SORTED_EVEN = py("def sort_even(l):\n    even = sorted(l[::2])\n"
                 "    return [even[i // 2] if i % 2 == 0 else l[i] for i in range(len(l))]\n\n"
                 "print(sort_even([5, 6, 3, 4]))  # Output: [3, 6, 5, 4]")


def test_code_whose_prints_differ_from_its_comments_proposed_again_is_asked_again(
        server, make_session):
    server.script([SORT_EVEN, SORT_EVEN, SORTED_EVEN, "sort_even is done."])
    events = run(make_session(server, tools="off", model_cls=Sampled), "Write sort_even.")
    assert [e["status"] for e in of(events, "block.finished")] == ["ok", "ok"]
    assert notices(events)[-1] == ("The model proposed the code of block 1 again, which did not "
                                   "do the task; it was not run. Asking again with sampling "
                                   "(temperature 0.7).")
    assert "printed `[5, 4, 3, 6]` but its comment expects `[3, 6, 5, 4]`" in told(server, 2)
    assert server.requests[2]["temperature"] == 0.7
    assert "does not match" not in told(server, 3)


def test_a_block_whose_last_print_printed_an_empty_line_is_checked(server, make_session):
    """HumanEval/38's checks ended with `print(decode_cyclic(""))`: the runner's output ends
    with that empty line, and each print still lines up with its comment."""
    same = py('def reverse(s):\n    return s\n\nprint(reverse("ab"))  # Output: "ba"\n'
              'print(reverse(""))  # Output: ""')
    server.script([same, "reverse is done."])
    run(make_session(server, tools="off"), "Write reverse.")
    assert 'printed `ab` but its comment expects `"ba"`' in told(server, 1)


def test_the_same_wrong_output_again_is_not_asked_for_its_answer(server, make_session):
    """Without retry sampling the block runs again: the repeat note repeats the mismatch and
    does not invite the final answer."""
    server.script([SORT_EVEN, SORT_EVEN, SORTED_EVEN, "sort_even is done."])
    events = run(make_session(server, tools="off"), "Write sort_even.")
    assert len(of(events, "block.finished")) == 3
    note = told(server, 2)
    assert ("Note: this is the same code with the same output as your previous run. The output "
            "does not match what your code's comments expect") in note
    assert "final answer" not in note


def test_a_copied_report_is_asked_again_with_sampling(server, make_session):
    echo = ("[Block 1, python]\nOutput:\n```\n775.92\n```\nResult: ok.")
    server.script([py("print(775.92)"), echo, "The average is 775.92."])
    events = run(make_session(server, tools="off", model_cls=Sampled), "What is the average?")
    assert finished(events) == {"exit_code": 0, "reason": "done"}
    assert [r.get("temperature") for r in server.requests] == [None, None, 0.7]


def test_a_copied_report_while_a_file_falls_short_is_asked_as_a_copy_first(server, make_session):
    """Qwen2.5-Coder-1.5B on cleaning-bad-types (interp eval tasks, d2ad516): it copied the
    report whose note said products_clean.csv lost prices; asked to fix the file, it copied the
    report again, and gave up. Asked as a copy (with sampling), it had fixed the code (a27d531)."""
    (make_session.work / "products.csv").write_text("sku,price\nA,\"$1,299.00\"\nB,5\n")
    lossy = py("import pandas as pd\ndf = pd.read_csv('products.csv')\n"
               "df['price'] = pd.to_numeric(df['price'], errors='coerce')\n"
               "df.to_csv('products_clean.csv', index=False)\nprint(df['price'].mean())")
    echo = "[Block 1, python]\nOutput:\n```\n5.0\n```\nResult: ok."
    server.script([lossy, echo, "The average is 5.0.", "unused"])
    run(make_session(server, tools="off", model_cls=Sampled),
        "Make the price column of products.csv numeric, save it as products_clean.csv and tell "
        "me the average price.")
    assert "\n\nYour last reply copied the report of a block" in told(server, 2)
    assert server.requests[2]["temperature"] == 0.7
    assert told(server, 3).startswith("Not done yet: price is empty in 1 row of "
                                      "products_clean.csv")  # then the answer is sent back


# Qwen2.5-Coder-1.5B on HumanEval/17 (`interp eval humaneval --feedback self`, 2026-11-28):
# the docstring ran away (`>>> parse_music('o|o|o|o|...`) to the length limit, and asked to
# send it shorter, greedy decoding wrote the same block to the same limit, three times.
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
    assert notices(events) == [CUT_OFF_NOTICE.format(temperature=0.7)]
    assert [e["status"] for e in of(events, "block.finished")] == ["ok"]  # the cut-off: not run
    again = server.requests[1]
    assert (again["temperature"], again["dry_multiplier"], again["seed"]) == (0.7, 0.8, 1)
    assert [m["role"] for m in again["messages"]] == ["system", "user"]  # the runaway: not sent
    assert again["messages"][-1]["content"] == f"count the notes\n\n{CUT_OFF_NOTE}"
    assert [r.get("dry_multiplier") for r in server.requests] == [None, 0.8, None]
    assert RUNAWAY in [m.content for m in session.messages]  # kept, as everything received


def test_a_block_cut_off_again_past_the_limit_is_reported(server, make_session):
    runaway = Reply(text=RUNAWAY, finish_reason="length")
    server.script([runaway] * (RESAMPLES_PER_TASK + 1) + ["I could not finish it."])
    events = run(make_session(server, tools="off", model_cls=RunsAway), "count the notes")
    assert len(notices(events)) == RESAMPLES_PER_TASK
    assert [r.get("seed") for r in server.requests] == [None, 1, 2, 3, 4, None]
    assert told(server, 5).endswith("Your reply was cut off at the length limit inside this "
                                    "block, so the block was not run. Write the code again, "
                                    "shorter.")


def test_without_runaway_sampling_a_cut_off_block_is_reported(server, make_session):
    server.script([Reply(text=RUNAWAY, finish_reason="length"), "I could not finish it."])
    run(make_session(server, tools="off", model_cls=Sampled), "count the notes")
    assert [r.get("temperature") for r in server.requests] == [None, None]
    assert told(server, 1).endswith("Write the code again, shorter.")
