"""The real `interp` executable in a pseudo-terminal, talking to the fake OpenAI server.

Nothing is mocked: pexpect drives the installed `interp` script, which streams from
tests/fake_openai.py through litellm and runs blocks in real runners. prompt_toolkit and rich
draw with escape sequences, so `Term` strips them and matches on the visible text. Every wait
is a generous hang guard; nothing here asserts how long anything takes (see bench/bench_cli.py).
"""

from __future__ import annotations

import re
import time


from pty_terminal import ESC, HANG_GUARD, QUESTION, fenced, last_user, texts
from fake_openai import Reply


# -- approval -----------------------------------------------------------------------------
def test_question_shows_exact_code_then_y_runs_it(spawn, fake_server):
    code = f"x = 41\nprint('answer', x + 1, len('{ESC}[2J'))"
    fake_server.script([fenced("python", code), "The answer is 42."])
    term = spawn()
    term.task("compute the answer")
    start = term.pos
    assert term.question() == "python"
    shown = term.since(start)
    assert "x = 41" in shown
    assert "print('answer', x + 1, len('\\e[2J'))" in shown  # the escape made visible
    assert shown.index("x = 41") < shown.index("print('answer'")
    assert ESC + "[2J" not in term.raw  # the code never reached the terminal raw
    term.send("y")
    term.expect(r"^answer 42 4$")
    term.expect("The answer is 42.")
    assert term.exit_status() == 0
    assert len(fake_server.requests) == 2
    told = last_user(fake_server.requests[1])
    assert "answer 42 4" in told


def test_n_with_reason_tells_model_and_n_without_reason_ends_turn(spawn, fake_server):
    fake_server.script([fenced("python", "print('first')"), fenced("python", "print('second')"),
                        fenced("shell", "echo third")])
    term = spawn()
    term.task("do things")
    term.question()
    term.send("n")
    term.expect("Reason")
    term.line("use the shell instead")
    term.expect("declined: use the shell instead")
    term.question()  # the model was asked again and proposed another block
    assert "use the shell instead" in last_user(fake_server.requests[1])
    term.send("n")
    term.expect("Reason")
    term.line("")  # no reason: the turn ends
    term.prompt()
    assert len(fake_server.requests) == 2
    assert "first" not in term.text.split("second")[-1]
    term.line("next task")  # the session goes on
    term.question()
    assert fake_server.requests[2]["messages"][-1]["content"] == "next task"
    term.send("y")
    term.expect("^third$")
    assert term.exit_status() == 0  # Ctrl-D at the next prompt (a key typed before it is dropped)


def test_e_with_editor_runs_the_edited_code(spawn, fake_server):
    fake_server.script([fenced("python", "print(41)"), "Done."])
    term = spawn(env={"EDITOR": "sed -i s/41/42/"})
    term.task("print a number")
    term.question()
    term.send("e")
    term.expect("^42$")
    term.expect("Done.")
    told = last_user(fake_server.requests[1])
    assert "edited" in told and "print(42)" in told and "42" in told
    assert "print(41)" not in told
    assert term.exit_status() == 0


def test_e_with_editor_that_changes_nothing_is_not_an_edit(spawn, fake_server, tmp_path):
    fake_server.script([fenced("python", "print(41)"), "Done."])
    # an editor that saves the file unchanged but, like vim, with a final newline
    editor = tmp_path / "touch-editor.sh"
    editor.write_text("#!/bin/sh\nprintf '\\n' >> \"$1\"\n")
    editor.chmod(0o755)
    term = spawn(env={"VISUAL": str(editor)})
    term.task("print a number")
    term.question()
    term.send("e")
    term.expect("^41$")
    term.expect("Done.")
    assert "edited" not in last_user(fake_server.requests[1])
    assert term.exit_status() == 0


def test_e_inline_editor_then_next_question_still_single_line(spawn, fake_server):
    reply = fenced("python", "print(41)") + "And then:\n```python\nprint('after')\n```\n"
    fake_server.script([reply, "Done."])
    term = spawn()  # EDITOR and VISUAL are unset: the inline editor
    term.task("print a number")
    term.question()
    term.send("e")
    term.expect("Esc-Enter")
    term.expect(r"print\(41\)")  # prefilled with the code
    term.send("\x7f\x7f2)")  # print(41) -> print(42)
    term.send("\x1b\r")  # Esc-Enter accepts
    term.expect("^42$")
    term.question()  # the second block: Enter must answer again, not insert a new line
    term.send("y")
    term.expect("^after$")
    term.expect("Done.")
    told = last_user(fake_server.requests[1])
    assert "edited" in told and "print(42)" in told
    assert term.exit_status() == 0


def test_keys_typed_while_a_block_runs_do_not_answer_the_next_question(spawn, fake_server,
                                                                      tmp_path):
    go = tmp_path / "go"
    waiter = ("import os, time\nprint('waiting', flush=True)\nend = time.monotonic() + 60\n"
              f"while not os.path.exists({str(go)!r}) and time.monotonic() < end:\n"
              "    time.sleep(0.02)\nprint('released')")
    reply = fenced("python", waiter) + "Then:\n```python\nprint('second ran')\n```\n"
    fake_server.script([reply, "Done."])
    term = spawn()
    term.task("go")
    term.question()
    term.send("y")
    term.expect("^waiting$")
    term.send("y")  # typed ahead while the block runs, before block 2 is shown
    go.touch()
    term.expect("^released$")
    term.question()
    term.send("n")
    term.expect("Reason")
    term.line("")
    term.expect("declined")
    term.prompt()
    assert not re.search("^second ran$", term.text, re.M)
    term.send("\x04")
    assert term.wait() == 0


def test_a_runs_later_blocks_of_that_language_without_asking(spawn, fake_server):
    second = fenced("python", "print('py two')") + "```shell\necho sh one\n```\n"
    fake_server.script([fenced("python", "print('py one')"), second, "Done."])
    term = spawn()
    term.task("go")
    term.question()
    term.send("a")
    term.expect(r"1\) all python code for this session")  # `a` offers allow rules
    term.expect(r"Which\? \[1-2, Enter or Esc to go back\]: ")
    term.send("1")
    term.expect("^py one$")
    start = term.pos
    term.expect("^py two$")
    assert not re.search(QUESTION, term.since(start))  # python ran without asking
    assert term.question() == "shell"  # other languages still ask
    term.send("y")
    term.expect("^sh one$")
    term.expect("Done.")
    assert term.exit_status() == 0


# -- Ctrl-C ------------------------------------------------------------------------------
def test_ctrl_c_while_streaming_stops_the_reply(spawn, fake_server):
    words = " ".join(f"w{i}" for i in range(2000))
    fake_server.script([Reply(text=words, chunk_delay=0.05, chunk_size=6), "Second answer."])
    term = spawn()
    term.task("talk a lot")
    term.expect("w1 ")  # streaming has started
    term.send("\x03")
    term.expect("Reply interrupted")
    term.task("next task")
    term.expect("Second answer.")
    request = fake_server.requests[1]
    assert request["messages"][-1]["content"].startswith("Note: the user stopped")
    assert request["messages"][-1]["content"].endswith("\n\nnext task")
    partial = request["messages"][-2]
    assert partial["role"] == "assistant" and "interrupted" in partial["content"]
    assert "w1999" not in partial["content"]
    assert term.exit_status() == 0


def test_ctrl_c_at_the_question_declines_and_ends_the_turn(spawn, fake_server):
    fake_server.script([fenced("python", "print('never')"), "Fine."])
    term = spawn()
    term.task("go")
    term.question()
    term.send("\x03")
    term.expect("declined")
    term.prompt()
    assert len(fake_server.requests) == 1
    assert "never" not in term.text.split("declined")[-1]
    term.line("again")
    term.expect("Fine.")
    assert "did not run" in fake_server.requests[1]["messages"][-2]["content"]
    assert term.exit_status() == 0


def test_ctrl_c_while_a_block_runs_stops_the_turn_and_keeps_state(spawn, fake_server):
    sleeper = "import time\nprint('sleeping', flush=True)\ntime.sleep(100)"
    reply = fenced("python", sleeper) + "Then:\n```python\nprint('later block ran')\n```\n"
    fake_server.script([fenced("python", "x = 5"), reply, fenced("python", "print('x is', x)"),
                        "Done."])
    term = spawn()
    term.task("set x then sleep")
    term.question()
    term.send("y")
    term.question()
    term.send("y")
    term.expect("^sleeping$")
    term.send("\x03")
    term.expect("interrupted")
    term.expect("Stopped: nothing more runs in this turn.")
    term.prompt()
    assert len(fake_server.requests) == 2  # the model was not called again
    assert not re.search("^later block ran$", term.text, re.M)
    term.line("show x")
    term.question()
    told = fake_server.requests[2]["messages"]
    assert told[-1]["content"].startswith("Note: the user stopped your previous turn")
    assert told[-1]["content"].endswith("\n\nshow x")
    assert "Not run" in told[-2]["content"]
    term.send("y")
    term.expect("^x is 5$")  # the runner kept its state
    term.expect("Done.")
    assert term.exit_status() == 0


# -- the task prompt ----------------------------------------------------------------------
def test_prompt_keys_and_history(spawn, fake_server, interp_env):
    fake_server.script(["One.", "Two."])
    term = spawn()
    term.prompt()
    term.send("garbage text")
    term.expect("garbage text")
    term.send("\x03")  # clears the line
    term.prompt()
    term.line("first task")
    term.expect("One.")
    term.prompt()
    term.send("line one\x1b\r")  # Esc-Enter: a new line, not submitted
    term.line("line two")
    term.expect("Two.")
    assert [r["messages"][-1]["content"] for r in fake_server.requests] == [
        "first task", "line one\nline two"]
    assert term.exit_status() == 0
    history = (interp_env["data"] / "interp" / "history").read_text()
    assert "first task" in history and "line two" in history and "garbage" not in history


# -- slash commands -----------------------------------------------------------------------
def test_help_unknown_command_and_exit(spawn, fake_server):
    fake_server.script(["Still here."])
    term = spawn()
    term.task("/help")
    for name in ("/help", "/reset", "/undo", "/model", "/tokens", "/auto", "/exit"):
        term.expect(rf"^{re.escape(name)}\s")
    term.task("/foo")
    term.expect("Unknown command /foo")
    term.task("hello")
    term.expect("Still here.")
    term.task("/exit")
    assert term.wait() == 0
    assert len(fake_server.requests) == 1


def test_auto_toggles_auto_approve(spawn, fake_server):
    fake_server.script([fenced("python", "print('ran alone')"), "Done.",
                        fenced("python", "print('asked')"), "Done again."])
    term = spawn()
    term.task("/auto")
    term.expect("Auto-approve is ON")
    term.task("go")
    start = term.pos
    term.expect("^ran alone$")
    term.expect("Done.")
    assert not re.search(QUESTION, term.since(start))
    term.task("/auto")
    term.expect("Auto-approve is OFF")
    term.task("go again")
    term.question()
    term.send("y")
    term.expect("^asked$")
    term.expect("Done again.")
    assert term.exit_status() == 0


def test_undo_drops_the_last_exchange(spawn, fake_server):
    fake_server.script(["Answer one.", "Answer two.", "Answer three."])
    term = spawn()
    term.task("task one")
    term.expect("Answer one.")
    term.task("task two")
    term.expect("Answer two.")
    term.task("/undo")
    term.expect("Dropped 2 messages")
    term.task("task three")
    term.expect("Answer three.")
    sent = texts(fake_server.requests[2])
    assert "task one" in sent and "Answer one." in sent
    assert "task two" not in sent and "Answer two." not in sent
    assert term.exit_status() == 0


def test_reset_starts_fresh_with_new_runners(spawn, fake_server):
    fake_server.script([fenced("python", "y = 7"), "Set.", fenced("python", "print(y)"), "Gone."])
    term = spawn()
    term.task("set y")
    term.question()
    term.send("y")
    term.expect("Set.")
    term.task("/reset")
    term.expect("New conversation")
    term.task("print y")
    term.question()
    term.send("y")
    term.expect("NameError")
    term.expect("Gone.")
    messages = fake_server.requests[2]["messages"]
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[1]["content"] == "print y"
    assert term.exit_status() == 0


def test_model_switches_the_model(spawn, fake_server):
    fake_server.script(["From fake.", "From other."])
    term = spawn()
    term.task("one")
    term.expect("From fake.")
    term.task("/model openai/other")
    term.expect("Model set to openai/other")
    term.task("two")
    term.expect("From other.")
    assert [r["model"] for r in fake_server.requests] == ["fake-model", "other"]
    assert term.exit_status() == 0


def test_tokens_shows_counts(spawn, fake_server):
    fake_server.script(["Counted."])
    term = spawn()
    term.task("count me")
    term.expect("Counted.")
    term.task("/tokens")
    match = term.expect(r"Tokens: (\d+) prompt \+ (\d+) completion = (\d+)")
    prompt, completion, total = map(int, match.groups())
    assert prompt > 0 and completion > 0 and total == prompt + completion
    term.expect(r"Context")
    assert term.exit_status() == 0


# -- resume ------------------------------------------------------------------------------
def test_resume_continues_the_conversation(spawn, fake_server):
    fake_server.script(["Noted, 7.", "It was 7."])
    term = spawn()
    term.task("remember the number 7")
    term.expect("Noted, 7.")
    assert term.exit_status() == 0
    again = spawn("--resume")
    again.expect("not restored")
    again.task("what was the number?")
    again.expect("It was 7.")
    sent = texts(fake_server.requests[1])
    assert "remember the number 7" in sent and "Noted, 7." in sent
    assert sent[-1].startswith("[interp: this conversation was resumed")
    assert sent[-1].endswith("\n\nwhat was the number?")
    assert again.exit_status() == 0


# -- startup ------------------------------------------------------------------------------
GATE = '''\
"""Test hook: hold `import litellm` until a gate file exists (bounded), and say when it starts."""
import importlib.abc, importlib.util, os, sys, time

class _Held:
    def __init__(self, loader):
        self._loader = loader
    def __getattr__(self, name):
        return getattr(self._loader, name)
    def create_module(self, spec):
        return self._loader.create_module(spec)
    def exec_module(self, module):  # runs under litellm's own module lock only
        gate = os.environ["GATE_FILE"]
        open(gate + ".started", "w").close()
        deadline = time.monotonic() + 60
        while not os.path.exists(gate) and time.monotonic() < deadline:
            time.sleep(0.02)
        self._loader.exec_module(module)

class _Gate(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name != "litellm":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.loader is not None:
            spec.loader = _Held(spec.loader)
        return spec

sys.meta_path.insert(0, _Gate())
'''


def test_prompt_appears_while_litellm_is_still_loading(spawn, fake_server, tmp_path):
    """Ordering, not timing: `import litellm` is held back until the prompt has been seen.
    (Through litellm: an OpenAI-compatible model on interp's own client never imports it.)"""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(GATE)
    gate = tmp_path / "gate"
    fake_server.script(["Loaded."])
    term = spawn(env={"PYTHONPATH": str(hook), "GATE_FILE": str(gate),
                      "INTERP_TRANSPORT": "litellm"})
    term.prompt()  # litellm cannot have finished importing: the gate is still closed
    term.send("/help\r")
    term.expect("/tokens")
    deadline = time.monotonic() + HANG_GUARD
    while not gate.with_suffix(".started").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gate.with_suffix(".started").exists()  # the background import had begun
    # /tokens needs litellm for the context size, so it waits; Ctrl-C gives the prompt back
    term.task("/tokens")
    term.expect("Tokens: 0 prompt")
    term.send("\x03")
    term.expect("Interrupted")
    gate.touch()
    term.task("hello")
    term.expect("Loaded.")
    assert term.exit_status() == 0
