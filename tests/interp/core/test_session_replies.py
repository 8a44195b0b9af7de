"""The loop's handling of what real models send: tool modes, calls written as text, fenced blocks
in tool mode, cut-off calls, refusals, empty replies, retries and loops. Real litellm, real
servers (tests/*_server.py), real runners; nothing mocked."""

from __future__ import annotations

import json

import pytest

from anthropic_server import AnthropicServer
from fake_openai import Reply
from gemini_server import GeminiServer
from session_kit import KEY, finished, of, py, run
from wire_server import Turn

from interp.approval.decision import auto_approve, decline
from interp.core import exits
from interp.core.history import Entry
from interp.core.session import Session, SessionConfig
from interp.models.reach import model_for
from interp.storage.conversations import ConversationStore
from languages import Registry, RunnerConfig
from languages.python import PythonRunner
from languages.shell import ShellRunner

CALL = {"language": "python", "code": "print(6 * 7)"}


def notices(events, level=None):
    return [n["text"] for n in of(events, "notice") if level in (None, n["level"])]


def told(server, index=-1) -> str:
    """The last message of request `index` (what the model was told)."""
    message = server.requests[index]["messages"][-1]
    return message.get("content") or ""


def asked_to_run(server, index=1) -> str:
    """The run request of request `index`: the answer it retracts is not sent, so the request
    ends the task's own message."""
    return told(server, index).rsplit("\n\n", 1)[1]


# -- tools = auto | on | off ------------------------------------------------------------------

def test_auto_says_once_why_no_tool_is_sent(server, make_session):
    server.script(["first answer", "second answer"])
    session = make_session(server, model="qwen2.5-coder-1.5b")
    first, second = run(session, "one"), run(session, "two")
    assert notices(first) == ["tools: off for openai/qwen2.5-coder-1.5b (tool support unknown "
                              "to litellm; --tools on)"]
    assert notices(second) == []
    assert all("tools" not in r for r in server.requests)
    assert "fenced code block" in server.requests[0]["messages"][0]["content"]


def test_on_sends_the_tool_and_describes_it(server, make_session):
    server.script([Reply(tool_calls=[{"name": "execute", "arguments": CALL}]), "42"])
    session = make_session(server, model="qwen2.5-coder-1.5b", tools="on")
    events = run(session, "6*7?")
    assert notices(events) == []
    assert [t["function"]["name"] for t in server.requests[0]["tools"]] == ["execute"]
    system = server.requests[0]["messages"][0]["content"]
    assert "call the `execute` function" in system and "fenced code block with" not in system
    assert session.messages[0].content != system  # stored: the plain prompt
    assert of(events, "block.finished")[0]["status"] == "ok"


def test_off_sends_no_tool_even_to_a_tool_model(server, make_session):
    server.script(["ok"])
    events = run(make_session(server, model="gpt-4o", tools="off"), "hi")
    assert "tools" not in server.requests[0] and notices(events) == []


# -- calls written as text ------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    '<tool_call>\n{"name": "execute", "arguments": {"language": "python", "code": "print(6 * 7)"}}\n</tool_call>',
    'Let me run it.\n```json\n{"name": "execute", "arguments": {"language": "python", "code": "print(6 * 7)"}}\n```',
    '{"name": "execute", "parameters": {"language": "python", "code": "print(6 * 7)"}}',
    '<function=execute>{"language": "python", "code": "print(6 * 7)"}</function>',
    '[TOOL_CALLS] [{"name": "execute", "arguments": {"language": "python", "code": "print(6 * 7)"}}]',
    '```json\n{"language": "python", "code": "print(6 * 7)"}\n```',
    '<tool_call>\n{"name": "python", "arguments": "{\\"code\\": \\"print(6 * 7)\\"}"}\n</tool_call>',
    '```json\n{"name": "execute", "arguments": {"language": "python", "code": """print(6 * 7)"""}}\n```',
], ids=["hermes", "json-fence", "bare", "llama", "mistral", "arguments-only", "named-python",
        "triple-quoted"])
def test_a_call_written_as_text_runs(server, make_session, text):
    server.script([text, "It is 42."])
    session = make_session(server, model="qwen2.5-coder-1.5b", tools="on")
    events = run(session, "6*7?")
    assert of(events, "block.proposed") == [{"index": 1, "language": "python", "code": "print(6 * 7)"}]
    assert "42" in told(server) and server.requests[-1]["messages"][-1]["role"] == "user"
    assert finished(events) == {"exit_code": 0, "reason": "done"}
    assert of(events, "message")[0]["final"] is False


def test_a_call_written_as_text_is_approved_as_usual(server, make_session):
    server.script(['<tool_call>{"name": "execute", "arguments": {"language": "shell", '
                   '"code": "touch made"}}</tool_call>', "Fine."])
    session = make_session(server, lambda proposal: decline("not now"), tools="on")
    events = run(session, "make a file")
    assert of(events, "block.declined")[0]["reason"] == "not now"
    assert not (make_session.work / "made").exists()


def test_an_unreadable_written_call_is_explained_once(server, make_session):
    server.script(['<tool_call>execute(code="print(1)")</tool_call>', "Understood."])
    session = make_session(server, tools="on")
    events = run(session, "go")
    assert of(events, "block.proposed") == []
    assert "could not be read" in told(server) and "`execute` tool" in told(server)
    assert finished(events)["exit_code"] == 0 and len(server.requests) == 2


def test_an_unreadable_call_in_a_json_block_is_explained(server, make_session):
    server.script(['```json\n{"name": "execute", "arguments": {"code": print(1)}}\n```', "Ok."])
    events = run(make_session(server, tools="on"), "go")
    assert "could not be read" in told(server) and finished(events)["exit_code"] == 0
    assert of(events, "message")[0]["final"] is False


# Qwen2.5-Coder-1.5B through `interp eval tasks --local` (2026-11-27, before issue 22), offered
# the tool by its chat template: the call as JSON text in a json fence.
QWEN_TEXT_CALL = ('```json\n{\n  "name": "execute",\n  "arguments": {\n    "language": "python",\n'
                  '    "code": "import pandas as pd\\nstudents = pd.read_csv(\'students.csv\')\\n'
                  'print(students[\'score\'].mean())"\n  }\n}\n```')


def test_auto_mode_serves_a_model_that_writes_calls_as_text_by_fences(server, make_session):
    (make_session.work / "students.csv").write_text("score\n60\n80\n")
    server.script([QWEN_TEXT_CALL, "The mean is 70.", py("print(1)"), "Done."])
    session = make_session(server, model="gpt-4o")  # litellm's map: takes tools
    events = run(session, "mean score?")
    assert "tools" in server.requests[0] and "tools" not in server.requests[1]
    assert notices(events, "info")[-1] == ("tools: off from now on (openai/gpt-4o wrote its tool "
                                           "call as text; code runs from fenced blocks)")
    assert of(events, "block.finished")[0]["status"] == "ok" and "70.0" in told(server, 1)
    assert "fenced code block with" in server.requests[1]["messages"][0]["content"]
    events = run(session, "and print 1")  # fenced blocks run from now on
    assert of(events, "block.finished")[0]["status"] == "ok" and notices(events) == []


@pytest.mark.parametrize("tools,first", [("on", QWEN_TEXT_CALL),
                                         ("auto", Reply(tool_calls=[{"name": "execute",
                                                                     "arguments": CALL}]))])
def test_the_tool_stays_for_on_and_for_a_model_that_has_called_it(server, make_session, tools,
                                                                  first):
    server.script([first, QWEN_TEXT_CALL, "Done."])
    (make_session.work / "students.csv").write_text("score\n60\n80\n")
    events = run(make_session(server, model="gpt-4o", tools=tools), "mean score?")
    assert all("tools" in r for r in server.requests)
    assert not any("from now on" in n for n in notices(events))


# Qwen2.5-Coder-1.5B, asked in a fresh HOME to summarise sales.csv (issue 22): a JSON call of a
# function that does not exist, which interp printed as the answer.
QWEN_MADE_UP = ('```json\n{\n  "name": "summarise_sales",\n  "arguments": {\n    "file": '
                '"sales.csv",\n    "chart": "revenue.png"\n  }\n}\n```')


@pytest.mark.parametrize("tools", ["off", "on"])
def test_a_call_of_a_made_up_function_is_not_the_answer(server, make_session, tools):
    server.script([QWEN_MADE_UP, py("print(6 * 7)"), "It is 42."])
    events = run(make_session(server, tools=tools), "summarise sales.csv")
    assert of(events, "message")[0]["final"] is False
    how = "call the `execute` tool" if tools == "on" else "write it in a fenced code block"
    assert "\nThere is no function 'summarise_sales' here, so nothing ran; to run code, " in \
        told(server, 1) and how in told(server, 1)
    assert of(events, "block.finished")[0]["status"] == "ok"
    assert finished(events) == {"exit_code": 0, "reason": "done"}


# Qwen2.5-Coder-1.5B via `interp --local -y -e` (a real transcript), asked to compute a sum of
# a power: an answer from memory, and a wrong one (2**20 + 7 is 1048583).
QWEN_GUESS = "2**20 + 7 = 1048575 + 7 = 1048582"


@pytest.mark.parametrize("tools", ["off", "on"])
def test_a_computation_answered_from_memory_is_asked_to_run(server, make_session, tools):
    server.script([QWEN_GUESS, py("print(2**20 + 7)"), "2**20 + 7 is 1048583."])
    events = run(make_session(server, tools=tools),
                 "Use Python to compute 2**20 + 7 and tell me the number.")
    assert [m["final"] for m in of(events, "message")] == [False, False, True]
    assert ("The answer states numbers no code computed; asking the model to compute them with "
            "code.") in notices(events)
    how = "Call the `execute` tool" if tools == "on" else "Reply with a ```python block"
    assert asked_to_run(server).startswith("Your answer was worked out without running code, "
                                           "and no code has run yet.")
    assert "1048582" not in asked_to_run(server)  # a small model copies what it is shown
    assert how in asked_to_run(server)
    sent = server.requests[1]["messages"]  # the guess is left out; the task leads the request
    assert [m["role"] for m in sent] == ["system", "user"] and QWEN_GUESS not in str(sent)
    assert told(server, 1).startswith("Use Python to compute 2**20 + 7 and tell me the number.")
    assert of(events, "block.finished")[0]["status"] == "ok"
    assert finished(events) == {"exit_code": 0, "reason": "done"}


def test_a_task_about_a_folder_here_is_not_answered_unseen(server, make_session):
    """Qwen2.5-Coder-1.5B (a real transcript): its whole reply to a task about a folder's files
    was `1`, in 1.3 s; nothing had run, and the folder held 7 .jpeg files."""
    (make_session.work / "photos").mkdir()
    (make_session.work / "photos" / "a.jpeg").write_text("x")
    server.script(["1", "```sh\ncd photos && for f in *.jpeg; do mv \"$f\" \"${f%.jpeg}.jpg\"; "
                   "echo \"$f\"; done | wc -l\n```", "I renamed 1 file."])
    events = run(make_session(server, tools="off"),
                 "Rename every .jpeg file in the photos folder to .jpg, keeping the rest of the "
                 "name. How many files did you rename?")
    assert [m["final"] for m in of(events, "message")] == [False, False, True]
    assert asked_to_run(server).startswith("The task is about what is in photos/ here, and no "
                                           "code has run yet. Reply with a ```python block")
    assert (make_session.work / "photos" / "a.jpg").exists()
    assert finished(events) == {"exit_code": 0, "reason": "done"}


def test_an_answer_before_the_file_the_task_asks_for_is_written_is_no_answer_yet(
        server, make_session):
    """Qwen2.5-Coder-1.5B (a real transcript): it printed a CSV file as JSON, never saved the
    JSON file the task names, and answered `ok.`."""
    (make_session.work / "inventory.csv").write_text("sku,quantity\nSKU-300,437\n")
    server.script([py("import csv, json\nprint(json.dumps(list(csv.DictReader(open("
                      "'inventory.csv')))))"), "ok.",
                   py("import pandas as pd\npd.read_csv('inventory.csv').to_json("
                      "'inventory.json', orient='records')\nprint('saved')"),
                   "Saved inventory.json."])
    events = run(make_session(server, tools="off"),
                 "Turn inventory.csv into inventory.json: a list of objects, one per row.")
    assert [m["final"] for m in of(events, "message")] == [False, False, False, True]
    assert "The task names inventory.json, which does not exist yet; asking the model whether " \
        "to write it." in notices(events, "info")
    assert asked_to_run(server, 2).startswith("The task names inventory.json, which does not "
                                              "exist yet. If the task asks for it, reply with a "
                                              "code block that saves it")
    assert (make_session.work / "inventory.json").exists()
    assert finished(events) == {"exit_code": 0, "reason": "done"}


def test_the_file_request_comes_once_a_task(server, make_session):
    server.script([py("print('summary')"), "I cannot write report.pdf here.",
                   "I still cannot write report.pdf."])
    events = run(make_session(server, tools="off"), "Save the summary as report.pdf")
    assert [m["final"] for m in of(events, "message")] == [False, False, True]
    assert finished(events) == {"exit_code": 0, "reason": "done"}


def test_an_acknowledgement_of_the_output_is_asked_for_the_answer_once(server, make_session):
    """Qwen2.5-Coder-1.5B (a real transcript): its block printed 39, the sum the task asked
    for, and its whole reply was `ok.`."""
    server.script([py("print(39)"), "ok.", "The sum of all its entries is 39.",
                   py("print(40)"), "ok.", "ok."])
    session = make_session(server, tools="off")
    for name in ("a.csv", "b.csv"):
        (make_session.work / name).write_text("1,2\n3,4\n")
    events = run(session, "Multiply the matrix in a.csv by the matrix in b.csv (A times B) and "
                          "tell me the sum of all its entries.")
    assert [m["final"] for m in of(events, "message")] == [False, False, True]
    assert "The model replied 'ok.' to a question; asking it for the answer itself." in \
        notices(events)
    assert asked_to_run(server, 2) == ("That does not answer the task. Reply to the user with "
                                       "the answer itself: the values or names the output "
                                       "shows, in the form the task asks for (else in words), "
                                       "and no code.")
    assert "ok." not in [m.get("content") for m in server.requests[2]["messages"]]
    assert finished(events) == {"exit_code": 0, "reason": "done"}
    events = run(session, "Print the product again")  # no question: ok. is an answer
    assert [m["final"] for m in of(events, "message")] == [False, True]
    events = run(session, "And what is the sum now?")  # no code ran this task
    assert [m["final"] for m in of(events, "message")] == [True]


# Qwen2.5-Coder-1.5B, told its cleaned file had lost values (a real transcript, shortened): its
# whole reply, a copy of interp's report.
QWEN_REPORT_ECHO = ("[Block 2, python]\nOutput:\n```\nThe average of the known prices is: "
                    "775.92\n```\nResult: ok.")


def test_a_copy_of_a_blocks_report_is_no_answer(server, make_session):
    server.script([py("print(775.92)"), QWEN_REPORT_ECHO, "The average is 775.92."])
    events = run(make_session(server, tools="off"), "What is the average of the known prices?")
    assert [m["final"] for m in of(events, "message")] == [False, False, True]
    assert ("The model replied with a copy of a block's report; asking it to go on."
            in notices(events))
    assert asked_to_run(server, 2).startswith("Your last reply copied the report of a block "
                                              "instead of replying.")
    assert finished(events) == {"exit_code": 0, "reason": "done"}


def test_a_calculation_answered_without_code_is_asked_to_run_it(server, make_session):
    """Qwen2.5-Coder-1.5B (a real transcript) asked for a root of a polynomial: its whole reply
    was `-0.50000`; the real root is 2.0946."""
    server.script(["-0.50000", py("import numpy\nprint(numpy.roots([1, 0, -2, -5]))"),
                   "The real root is 2.0946."])
    events = run(make_session(server, tools="off"),
                 "Find the real root of x^3 - 2x - 5 = 0 to 4 decimal places.")
    assert [m["final"] for m in of(events, "message")] == [False, False, True]
    assert asked_to_run(server).startswith("Your answer was worked out without running code")
    assert finished(events) == {"exit_code": 0, "reason": "done"}


def test_the_model_is_asked_to_run_code_once_a_task(server, make_session):
    server.script([QWEN_GUESS, "No code is needed: it is 1048583.",
                   QWEN_GUESS, "No code is needed: it is 1048583."])
    session = make_session(server, tools="off")
    for _ in range(2):
        events = run(session, "Use Python to compute 2**20 + 7 and tell me the number.")
        assert [m["final"] for m in of(events, "message")] == [False, True]
        assert finished(events) == {"exit_code": 0, "reason": "done"}
    assert len(server.requests) == 4


@pytest.mark.parametrize("task", ["What is Python's GIL?",
                                  "Should I write this tool in Python or in Go? Just give me "
                                  "your opinion.", "What year did the first moon landing happen?"])
def test_questions_with_nothing_to_compute_take_the_answer(server, make_session, task):
    server.script(["I would pick Python: it is what the rest of your code uses, since 2019."])
    events = run(make_session(server, tools="off"), task)
    assert [m["final"] for m in of(events, "message")] == [True]
    assert len(server.requests) == 1


def test_calls_the_server_parsed_out_of_the_text_run_in_fenced_mode(server, make_session):
    """llama.cpp may turn a `<tool_call>` the model wrote into a tool call even when no tool
    was offered; the reply was saved as '(empty reply)' and nothing ran."""
    server.script([Reply(text="Let me check.", tool_calls=[{"name": "execute", "arguments": CALL}]),
                   "It is 42."])
    session = make_session(server, tools="off")
    events = run(session, "6*7?")
    assert of(events, "block.finished")[0]["status"] == "ok" and "42" in told(server)
    saved = session.messages[2]
    assert saved.role == "assistant" and "tool_calls" not in saved.message
    assert saved.content.startswith("Let me check.\n<tool_call>\n{\"name\": \"execute\"")
    assert all("tool_calls" not in m for r in server.requests for m in r["messages"])


def test_json_data_is_not_a_call(server, make_session):
    server.script(['Here:\n```json\n{"name": "Ada", "arguments": ["x"]}\n```'])
    events = run(make_session(server, tools="on"), "show json")
    assert of(events, "block.proposed") == [] and len(server.requests) == 1


# -- fenced blocks without a language tag ------------------------------------------------------

@pytest.mark.parametrize("untagged", ["result = 6 * 7\nprint(result)", "ls -la",
                                      "set -e\nstarted"])  # the last one: the real 1.5B model
def test_code_in_an_untagged_fence_is_explained_once(server, make_session, untagged):
    server.script([f"```\n{untagged}\n```", py("print(6 * 7)"), "It is 42."])
    events = run(make_session(server, tools="off"), "6*7?")
    assert "no language tag" in notices(events, "info")[-1]
    nudge = server.requests[1]["messages"][-1]
    assert nudge["role"] == "user" and "no language tag, so it was not run" in nudge["content"]
    assert "```python" in nudge["content"]
    assert [m["final"] for m in of(events, "message") if m["role"] == "assistant"] == \
        [False, False, True]
    assert of(events, "block.proposed")[0]["code"] == "print(6 * 7)" and "42" in told(server)
    assert finished(events) == {"exit_code": 0, "reason": "done"}


def test_an_untagged_fence_is_explained_once_a_task(server, make_session):
    server.script(["```\nprint(1)\n```", "```\nprint(1)\n```", "```\nprint(2)\n```",
                   "```\nprint(2)\n```"])
    session = make_session(server, tools="off")
    for task in ("one", "two"):
        events = run(session, task)
        assert finished(events)["exit_code"] == 0 and of(events, "block.proposed") == []
        assert of(events, "message")[-1]["final"] is True
    assert len(server.requests) == 4  # one nudge in each task, no more


@pytest.mark.parametrize("sample", ["42", "a,b\n1,2", "Oslo 3\nRome 17", "121932631112635269"])
def test_an_untagged_output_sample_is_an_answer(server, make_session, sample):
    server.script([f"The result:\n```\n{sample}\n```"])
    events = run(make_session(server, tools="off"), "go")
    assert len(server.requests) == 1 and of(events, "message")[0]["final"] is True


# -- terminal transcripts (```console, ```pycon) ----------------------------------------------

def test_a_console_session_runs_its_commands_after_approval(server, make_session):
    console = "$ echo hello > made.txt\n$ cat made.txt\nhello\n$ wc -c made.txt\n6 made.txt"
    server.script([f"Let me create it:\n```console\n{console}\n```", "Created made.txt."])
    asked = []

    def approver(proposal):
        asked.append((proposal.language, proposal.code))
        return auto_approve(proposal)

    events = run(make_session(server, approver, tools="off"), "make a file")
    assert asked == [("shell", console)]  # shown as the model wrote it, run as a shell block
    assert (make_session.work / "made.txt").read_text() == "hello\n"
    report = told(server)
    assert "[Block 1, shell]" in report and "hello\n6 made.txt" in report
    assert "pasted terminal session" in report and "output lines in it were skipped" in report
    assert finished(events) == {"exit_code": 0, "reason": "done"}


def test_a_pycon_session_runs_as_python(server, make_session):
    server.script(["```pycon\n>>> x = 6 * 7\n>>> print(x)\n42\n```", "It is 42."])
    events = run(make_session(server, tools="off"), "6*7?")
    assert of(events, "block.proposed")[0]["language"] == "python"
    assert "42" in told(server) and "pasted console session" in told(server)


def test_a_console_block_of_commands_without_prompts_is_explained(server, make_session):
    server.script(["```console\nls -la\n```", "```bash\nls -la\n```", "Listed."])
    events = run(make_session(server, tools="off"), "list files")
    assert notices(events, "info")[-1] == ("The reply's ```console block has no $ prompt, so it "
                                           "was shown as output, not run; asking the model to "
                                           "tag it.")
    nudge = server.requests[1]["messages"][-1]["content"]
    assert nudge.startswith("The ```console block in your reply has no `$ ` prompt, so it was "
                            "shown as output and not run: ") and "```python" in nudge
    assert [b["language"] for b in of(events, "block.proposed")] == ["shell"]


@pytest.mark.parametrize("sample", ["hello\nworld", "total 0", "$HOME is /root"])
def test_a_console_block_of_output_is_an_answer(server, make_session, sample):
    server.script([f"It printed:\n```console\n{sample}\n```"])
    events = run(make_session(server, tools="off"), "go")
    assert len(server.requests) == 1 and of(events, "message")[0]["final"] is True
    assert of(events, "block.proposed") == []


# -- fenced blocks in tool mode ---------------------------------------------------------------

def test_after_the_model_used_the_tool_fenced_blocks_are_only_shown(server, make_session):
    (make_session.work / "out").mkdir()
    server.script([
        Reply(tool_calls=[{"name": "execute", "arguments": CALL}]),
        "Done. For later, to clean up:\n```bash\nrm -rf out\n```",
    ])
    events = run(make_session(server, model="gpt-4o"), "6*7")
    assert [p["code"] for p in of(events, "block.proposed")] == ["print(6 * 7)"]
    assert (make_session.work / "out").is_dir()
    assert of(events, "message")[-1]["final"] is True and finished(events)["exit_code"] == 0


def test_in_tool_mode_fenced_blocks_run_if_the_model_never_uses_the_tool(server, make_session):
    server.script([py("print('fenced')"), "ok"])
    events = run(make_session(server, model="gpt-4o"), "go")
    assert of(events, "block.finished")[0]["status"] == "ok" and "fenced" in told(server)


# -- cut off by max_tokens --------------------------------------------------------------------

def test_a_call_cut_off_by_max_tokens_is_stored_valid_and_explained(server, make_session, tmp_path):
    cut = '{"language": "python", "code": "print(\'a very long'
    server.script([Reply(text="Writing it:", tool_calls=[{"id": "call_cut", "name": "execute",
                                                         "arguments": cut}], finish_reason="length"),
                   "I will write less."])
    store = ConversationStore(tmp_path / "sessions")
    session = make_session(server, model="gpt-4o", log=store.create({"model": "gpt-4o"}, [KEY]))
    events = run(session, "write a long script")
    assert of(events, "block.proposed") == []
    assert server.requests[0]["max_tokens"] == 8192
    second = server.requests[1]["messages"]
    stored = second[-2]["tool_calls"][0]["function"]["arguments"]
    assert json.loads(stored) == {"language": "python", "code": "print('a very long"}
    assert second[-1]["role"] == "tool" and "cut off" in second[-1]["content"]
    assert finished(events)["exit_code"] == 0
    server.add("resumed fine")
    resumed = make_session(server, model="gpt-4o")
    resumed.messages[:] = store.load(session.id)
    assert finished(run(resumed, "go on"))["exit_code"] == 0


def test_an_old_conversation_with_a_broken_call_is_sent_repaired(server, make_session):
    server.script(["fine"])
    session = make_session(server, model="gpt-4o")
    session.messages += [
        Entry({"role": "user", "content": "earlier"}),
        Entry({"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "execute",
                                                          "arguments": '{"code": "x = '}}]}),
        Entry({"role": "tool", "tool_call_id": "c1", "content": "cut off"})]
    run(session, "again")
    sent = server.requests[0]["messages"][2]["tool_calls"][0]["function"]["arguments"]
    assert json.loads(sent) == {"code": "x = "}


def test_a_text_answer_cut_off_says_so(server, make_session):
    server.script([Reply(text="The answer is a long story that", finish_reason="length")])
    events = run(make_session(server, tools="off"), "tell me")
    assert any("cut off by the output limit" in t for t in notices(events, "warning"))


# -- refusals and empty replies ----------------------------------------------------------------

def test_content_filter_is_not_success(server, make_session):
    server.script([Reply(text="", finish_reason="content_filter")])
    events = run(make_session(server, tools="off"), "something")
    assert finished(events) == {"exit_code": exits.NO_ANSWER, "reason": "blocked"}
    assert "content_filter" in notices(events, "error")[0]
    assert of(events, "message")[0]["final"] is False


def test_anthropic_refusal_ends_with_no_answer(make_session):
    with AnthropicServer([Turn(text="I can't help", finish="refusal")]) as server:
        session = Session(model_for("anthropic/claude-sonnet-4-5", api_base=server.api_base,
                                    api_key=KEY), config=SessionConfig(
            runner=RunnerConfig(cwd=str(make_session.work))),
            registry=Registry([PythonRunner, ShellRunner]))
        try:
            events = run(session, "something")
        finally:
            session.close()
    assert finished(events)["exit_code"] == exits.NO_ANSWER
    assert "refused" in notices(events, "error")[0]


def gemini_session(server, work) -> Session:
    return Session(model_for("gemini/gemini-2.5-flash", api_base=server.api_base, api_key=KEY),
                   config=SessionConfig(runner=RunnerConfig(cwd=str(work))),
                   registry=Registry([PythonRunner, ShellRunner]))


def test_an_empty_reply_is_asked_again_once(make_session):
    with GeminiServer([Turn(finish="MALFORMED_FUNCTION_CALL"), "All done."]) as server:
        session = gemini_session(server, make_session.work)
        try:
            events = run(session, "do it")
        finally:
            session.close()
        assert notices(events, "warning") == ["gemini/gemini-2.5-flash sent an empty reply; "
                                              "asking it to go on."]
        last = server.bodies[-1]["contents"][-1]
        assert "no answer and no code" in json.dumps(last)
    assert finished(events) == {"exit_code": 0, "reason": "done"}


def test_two_empty_replies_end_with_no_answer(make_session):
    with GeminiServer(default=Turn(finish="MALFORMED_FUNCTION_CALL")) as server:
        session = gemini_session(server, make_session.work)
        try:
            events = run(session, "do it")
        finally:
            session.close()
    assert finished(events) == {"exit_code": exits.NO_ANSWER, "reason": "empty reply"}
    assert len(server.requests) == 2 and "empty reply again" in notices(events, "error")[0]


# -- retries are events -------------------------------------------------------------------------

def test_retries_are_model_retry_events(server, make_session):
    server.script([Reply(status=429, fail_times=1, text="after a retry")])
    events = run(make_session(server, tools="off"), "hi")
    retry = of(events, "model.retry")
    assert len(retry) == 1 and retry[0]["attempt"] == 1 and retry[0]["max_attempts"] == 5
    assert retry[0]["reason"] == "rate_limit" and retry[0]["text"].startswith("rate limited, retry 1")
    assert retry[0]["restart"] is False and finished(events)["exit_code"] == 0


def test_a_reply_cut_by_a_dropped_connection_starts_over(server, make_session):
    server.script([Reply(text="half of a reply", chunk_size=4, drop_after=3), "the whole reply"])
    session = make_session(server, tools="off")
    deltas = []
    events = run(session, "hi", on_event=lambda e: deltas.append(e) if e.type == "message.delta" else None)
    assert of(events, "model.retry")[0]["restart"] is True
    assert of(events, "message")[0]["text"] == "the whole reply"
    assert session.messages[-1].content == "the whole reply"


# -- loops ----------------------------------------------------------------------------------

def test_the_same_block_and_output_three_times_asks_for_the_answer_then_stops(server, make_session):
    server.default = py("print('same')")
    events = run(make_session(server, tools="off", max_turns=10), "loop")
    assert finished(events) == {"exit_code": exits.LOOP, "reason": "loop"}
    assert len(of(events, "block.finished")) == 3 and len(server.requests) == 4
    assert notices(events, "info")[-1] == ("The model ran the same code with the same output 3 "
                                           "times; asking it for its answer.")
    assert "same code with the same output 3 times" in notices(events, "warning")[0]
    assert "same code with the same output as your previous run" in told(server, 2)
    assert told(server, 3).startswith("You have run the same code 3 times")
    assert "Do not run code again" in told(server, 3)
    assert len(of(events, "block.proposed")) == 3  # the fourth, the same again, is not run


# Qwen2.5-Coder-1.5B through `interp --local -y -e "Use Python to compute 2**20 + 7 and tell me
# the number."` (2026-11-27): a block, then the same code again as a JSON call written as text.
QWEN_FIRST = ("To compute \\(2^{20} + 7\\) in Python and print the result, you can use the built-in "
              "`pow` function for exponentiation and addition. Here's the code:\n\n```python\n"
              "result = pow(2, 20, 7)\nprint(result)\n```\n\nWhen you run this code on the user's "
              "machine, the output will be the result of \\(2^{20} + 7\\).")
QWEN_AGAIN = ('```json\n{\n  "name": "execute",\n  "arguments": {\n    "language": "python",\n'
              '    "code": "result = pow(2, 20, 7)\\nprint(result)"\n  }\n}\n```')


def test_a_model_stuck_on_a_block_answers_when_asked(server, make_session):
    server.script([QWEN_FIRST, QWEN_AGAIN, QWEN_AGAIN, "The number is 4."])
    events = run(make_session(server, tools="off", max_turns=10), "2**20 + 7?")
    assert finished(events) == {"exit_code": 0, "reason": "done"}
    assert [m["final"] for m in of(events, "message")] == [False, False, False, True]
    assert len(of(events, "block.finished")) == 3 and "Do not run code again" in told(server, 3)


def test_the_same_block_with_new_output_goes_on(server, make_session):
    server.script([py("n = globals().get('n', 0) + 1; print(n)")] * 3 + ["done"])
    events = run(make_session(server, tools="off"), "count")
    assert finished(events)["exit_code"] == 0 and len(of(events, "block.finished")) == 3


def test_an_echo_of_the_tool_definitions_is_not_an_answer(server, make_session):
    """Qwen2.5-Coder 1.5B, offered the tool, sometimes only repeats its <tools> block."""
    echo = '<tools>\n{"type": "function", "function": {"name": "execute"}}\n</tools>'
    server.script([echo, "There are 2 files."])
    events = run(make_session(server, tools="on"), "count files")
    assert len(notices(events, "warning")) == 1 and "no answer and no code" in told(server)
    assert of(events, "message")[0]["final"] is False
    assert finished(events) == {"exit_code": 0, "reason": "done"}


def asked_after_failing(events, server, noted: int, when: str) -> None:
    """The task stopped on a loop of failing code: noted in request `noted` (the same code as
    `when`), and the answer asked for in the next one."""
    assert finished(events) == {"exit_code": exits.LOOP, "reason": "loop"}
    assert f"same code as {when}, and it failed again" in told(server, noted)
    assert told(server, noted + 1).startswith("You have run the same code 3 times and it "
                                              "failed each")
    assert notices(events, "info")[-1] == ("The model ran the same code with the same error 3 "
                                           "times; asking it for its answer.")


def test_the_same_failing_code_counts_as_a_repeat_though_its_error_changes(server, make_session):
    """Qwen2.5-Coder-1.5B on the sensors task (interp eval tasks, 2026-11-27) proposed one
    merge block eight times; with the runner's state kept it failed with KeyError 'temperature'
    and 'Column not found: temperature_x' in turn, so it never counted as a repeat and the
    task ran out of turns (exit 3)."""
    server.default = py("flip = not globals().get('flip', False)\n"
                        "raise KeyError('temperature' if flip else 'Column not found: temperature_x')")
    events = run(make_session(server, tools="off", max_turns=10), "fill the gaps")
    assert len(of(events, "block.finished")) == 3 and len(server.requests) == 4
    asked_after_failing(events, server, 2, "your previous run")
    assert "same failing code 3 times" in notices(events, "warning")[0]


# Qwen2.5-Coder-1.5B on the sensors task (interp eval tasks, 2026-11-27, the third round): after
# its merge renamed `temperature`, it "corrected" the column to temperature_x, then
# temperature_y, then temperature_x..., each from a fresh read of the file (shortened).
QWEN_SWAP = ("The error occurs because the column name `{old}` is not found in the DataFrame "
             "`df`. The correct column name is `{new}`.\n\n```python\nimport pandas as pd\n"
             "df = pd.DataFrame({{'sensor': ['S1'], 'temperature': [20.0]}})\n"
             "means = df.groupby('sensor')['{new}'].mean()\n```")


def test_two_failing_fixes_swapped_in_turn_are_a_loop(server, make_session):
    """The two blocks failed in turn until --max-turns (exit 3, 8 calls)."""
    x = QWEN_SWAP.format(old="temperature_y", new="temperature_x")
    y = QWEN_SWAP.format(old="temperature_x", new="temperature_y")
    server.script([x, y, x, y, x, y, x, y])
    events = run(make_session(server, tools="off", max_turns=8), "fill the gaps")
    assert len(of(events, "block.finished")) == 4 and len(server.requests) == 5
    asked_after_failing(events, server, 3, "one of your earlier runs")


# Qwen2.5-Coder-1.5B (a real transcript), after its "save the above code to
# remove_duplicates.py and run it" block had failed: the same two blocks in every reply, the
# first running fine and the second failing, eight times.
QWEN_CD_AND_RUN = (
    "The error occurs because the script is not in the correct directory.\n\n"
    "To fix this, you need to ensure that the script is in the correct directory. Here are the "
    "steps to do it:\n\n1. **Navigate to the correct directory**:\n   - Open a terminal and "
    "navigate to the directory where the `remove_duplicates.py` file is located. For example:\n"
    "     ```sh\n     cd .\n     ```\n\n2. **Run the script**:\n   - Once you are in the "
    "correct directory, run the script using Python:\n     ```sh\n     python3 "
    "remove_duplicates.py\n     ```\n\nThis should resolve the error and allow the script to "
    "run successfully.")


def test_a_reply_of_several_blocks_repeated_is_a_loop(server, make_session):
    server.default = QWEN_CD_AND_RUN
    events = run(make_session(server, tools="off", max_turns=10), "dedupe contacts.csv")
    assert finished(events) == {"exit_code": exits.LOOP, "reason": "loop"}
    assert len(of(events, "block.finished")) == 6 and len(server.requests) == 4
    assert "same code as your previous run, and it failed again" in told(server, 2)
    assert told(server, 3).startswith("You have run the same code 3 times and it failed each")


def test_the_same_failing_block_three_times_stops_though_tracebacks_name_each_block(
        server, make_session):
    server.default = py("import missing_module_xyz")
    events = run(make_session(server, tools="off", max_turns=10), "loop")
    assert finished(events)["exit_code"] == exits.LOOP and len(server.requests) == 4


def test_the_note_on_a_failing_repeat_quotes_the_failing_line(server, make_session):
    """Qwen2.5-Coder-1.5B on the task benchmark (2026-11-27) ran `area = np.trapz(...)` three
    times though the error said numpy has no trapz: the note now names that line."""
    server.default = py("import math\nx = [1, 2]\narea = math.trapz(x)\nprint(area)")
    events = run(make_session(server, tools="off", max_turns=10), "the area")
    asked_after_failing(events, server, 2, "your previous run")
    assert ("it failed again on line 3: `area = math.trapz(x)`. Do not run it again unchanged: "
            "read the error and change that line.") in told(server, 2)
