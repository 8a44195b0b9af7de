"""Single-key approval, bounded output, token lines and slash commands: the real `interp` in a
pty against the fake OpenAI server (issue 9, items 4, 5, 13, 14). Waits are hang guards."""

from __future__ import annotations

import re
from pathlib import Path

from helpers import write_config
from pty_terminal import QUESTION, fenced, last_user

MENU = r"Which\? \[1-(\d), Enter or Esc to go back\]: "


# -- item 4: approval by a single key -------------------------------------------------------
def test_one_key_answers_and_an_invalid_key_says_what_the_keys_are(spawn, fake_server):
    fake_server.script([fenced("python", "print('ran at once')"), "Done."])
    term = spawn()
    term.task("go")
    term.question()
    term.send("x")  # not an answer: no Enter needed to find out
    term.expect("Press one key: y runs the block, n declines it")
    term.expect(QUESTION)
    term.send("y")  # no Enter
    term.expect("^ran at once$")
    term.expect("Done.")
    assert term.exit_status() == 0


def test_rules_say_why_and_a_offers_a_prefix_per_command(spawn, fake_server, interp_env):
    write_config(interp_env, '[approval]\nallow = ["bash: echo *"]\n')
    block = fenced("shell", "ls -la | head -3")
    fake_server.script([block, "One.", fenced("shell", "ls -l | head -1"), "Two.",
                        block, "Three."])
    term = spawn()
    term.task("list")
    start = term.pos
    term.question()
    shown = term.since(start)
    assert "Asking because no rule allows `ls -la`." in shown[shown.rfind("╰"):]
    term.send("a")
    term.expect(r"1\) `shell: ls \*` and `shell: head \*` for this session")
    term.expect(r"2\) all shell code for this session")
    assert term.expect(MENU).group(1) == "4"
    term.send("1")
    term.expect(r"Allowed `shell: ls \*` and `shell: head \*` from now on \(for this session\)")
    term.expect("One.")
    assert re.search(r"^total \d+$", term.since(start), re.M)  # ls ran

    term.task("list again")  # both prefixes are allowed now: it runs without asking
    start = term.pos
    term.expect("Two.")
    assert not re.search(QUESTION, term.since(start))

    term.task("/reset")
    term.expect("2 session rules cleared")
    term.task("list once more")
    term.question()  # asks again after /reset
    term.send("y")
    term.expect("Three.")
    assert term.exit_status() == 0


def test_esc_at_the_question_declines_and_stops(spawn, fake_server):
    fake_server.script([fenced("python", "print('never')") + "```python\nprint('nor')\n```\n",
                        "Fine."])
    term = spawn()
    term.task("go")
    term.question()
    term.send("\x1b")
    term.expect("declined")
    term.prompt()
    assert len(fake_server.requests) == 1
    assert not re.search("^(never|nor)$", term.text, re.M)
    term.line("again")
    term.expect("Fine.")
    told = fake_server.requests[1]["messages"][-2]["content"]
    assert "declined by the user" in told and "Not run: the user stopped the turn" in told
    assert term.exit_status() == 0


# -- item 5: long output is collapsed in the terminal -----------------------------------------
def test_200000_lines_leave_a_head_a_count_and_a_tail(spawn, fake_server):
    fake_server.script([fenced("python", "for i in range(200000):\n    print('line', i)"),
                        "Printed."])
    term = spawn("-y")
    term.task("print a lot")
    term.expect("^line 49$")
    slow = 240  # a hang guard: 200,000 lines take a while on a loaded machine
    match = term.expect(r"… 199,930 lines left out \(full output:\s+(\S+)\)\s+…", guard=slow)
    term.expect("^line 199980$")
    term.expect("^line 199999$")
    term.expect("Printed.")
    term.prompt()
    spool = Path(match.group(1))
    assert spool.read_text().count("\n") == 200000
    assert not re.search("^line (50|1000|199979)$", term.text, re.M)
    assert term.raw.count("\n") < 1000  # the terminal got about seventy lines of it
    assert len(term.screen()) < 200
    assert "199999" in last_user(fake_server.requests[1])  # the model's side is unchanged
    assert term.quit() == 0


# -- item 13: tokens and cost --------------------------------------------------------------------
def test_a_token_line_after_each_reply_and_a_total_at_exit(spawn, fake_server):
    fake_server.script([fenced("python", "print(1)"), "Counted."])
    term = spawn("-y")
    term.task("count")
    term.expect(r"Tokens: \d+ sent, \d+ received\. Cost unknown\.")
    term.expect("Counted.")
    term.expect(r"Tokens: \d+ sent, \d+ received\. Cost unknown\.")
    term.prompt()
    term.child.sendeof()
    term.expect(r"Session: \d+ tokens sent, \d+ received, cost unknown\.")
    assert term.wait() == 0


# -- item 14: slash commands --------------------------------------------------------------------
def test_model_to_another_provider_drops_the_api_base_and_key(spawn, fake_server):
    fake_server.script(["From fake.", "Back on fake."])
    term = spawn()
    term.task("one")
    term.expect("From fake.")
    term.task("/model anthropic/claude-3-5-haiku-20241022")
    term.expect(r"Model set to anthropic/claude-3-5-haiku-20241022\. The API base and API key\s+"
                r"given for openai are not\s+sent to anthropic")
    term.expect("ANTHROPIC_API_KEY")
    term.task("two")
    term.expect(r"(?i)anthropic|api key|auth")  # fails without a key, never reaching the fake
    term.prompt()
    assert len(fake_server.requests) == 1
    term.line("/model openai/fake-model")  # back to the configured provider: base and key again
    term.expect("Model set to openai/fake-model.")
    term.task("three")
    term.expect("Back on fake.")
    assert fake_server.headers.get("Authorization") == "Bearer sk-test-123456"
    assert term.exit_status() == 0


def test_clear_tab_completion_and_empty_export(spawn, fake_server, interp_env):
    fake_server.script(["Remembered.", "Fresh."])
    term = spawn()
    term.task("/export")
    term.expect("Nothing to export: the conversation is empty.")
    assert not list(interp_env["cwd"].glob("interp-*.md"))
    term.task("remember 7")
    term.expect("Remembered.")
    term.prompt()
    term.send("/cle\t")  # Tab completes the command
    term.expect("/clear")
    term.send("\r")
    term.expect("New conversation")
    term.task("what was it?")
    term.expect("Fresh.")
    assert [m["role"] for m in fake_server.requests[1]["messages"]] == ["system", "user"]
    assert term.exit_status() == 0
