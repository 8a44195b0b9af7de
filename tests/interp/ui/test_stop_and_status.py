"""Stop means stop, live status, clean transcript: the real `interp` in a pty against the fake
OpenAI server (issue 9, items 1-3). Esc and Ctrl-C end the turn in every approval mode; the
status line shows what interp waits on and leaves nothing behind; keys typed meanwhile never
reach the transcript. Gates (files, events) order things; waits are hang guards only."""

from __future__ import annotations

import re
import threading
import time

import pexpect
import pytest

from fake_openai import Reply
from helpers import interp_cmd, model_args, write_config
from pty_terminal import ESC, HANG_GUARD, Term, fenced

SLEEPER = ("import time\nkept = 'still here'\nprint('sleeping', flush=True)\n"
           "time.sleep(100)\nprint('woke up')")
LATER = "Then:\n```python\nprint('later block ran')\n```\n"


def gated(reply: str, gate: threading.Event):
    """A reply the fake server sends only once `gate` is set (the test sees the wait first)."""
    def answer(body: dict) -> str:
        gate.wait(HANG_GUARD)
        return reply
    return answer


def until(condition, what: str = "the condition") -> None:
    """Wait (a hang guard, not a timing) until condition() is true."""
    deadline = time.monotonic() + HANG_GUARD
    while not condition():
        assert time.monotonic() < deadline, f"hang guard: no {what}"
        time.sleep(0.02)


def gate_file_code(path, label: str = "waiting") -> str:
    """Python that prints `label`, then waits (bounded) until `path` exists."""
    return (f"import os, time\nprint({label!r}, flush=True)\nend = time.monotonic() + 60\n"
            f"while not os.path.exists({str(path)!r}) and time.monotonic() < end:\n"
            "    time.sleep(0.02)\nprint('released')")


# -- item 1: Esc and Ctrl-C stop the turn ---------------------------------------------------
@pytest.mark.parametrize("key, how", [(ESC, "auto"), ("\x03", "rules"), (ESC, "ask")])
def test_stop_during_a_block_ends_the_turn_in_every_mode(spawn, fake_server, interp_env,
                                                         key, how):
    fake_server.script([fenced("python", SLEEPER) + LATER, "Model called again.",
                        fenced("python", "print('kept is', kept)"), "Done."])
    args = ["-y"] if how == "auto" else []
    if how == "rules":
        write_config(interp_env, '[approval]\nallow = ["python"]\n')
    term = spawn(*args)
    term.task("sleep")
    if how == "ask":
        term.question()
        term.send("y")
    term.expect("^sleeping$")
    term.send(key)
    term.expect("✗ interrupted")
    term.expect("Stopped: nothing more runs in this turn.")
    term.prompt()
    assert not re.search("^later block ran$", term.text, re.M)
    assert len(fake_server.requests) == 1  # no further model call
    term.line("go on")
    term.expect("Model called again.")
    told = fake_server.requests[1]["messages"]
    assert told[-1]["content"].startswith("Note: the user stopped your previous turn")
    assert told[-1]["content"].endswith("\n\ngo on")  # the request comes last
    assert "Not run: the user stopped the turn." in told[-2]["content"]
    term.line("print it")
    if how == "ask":
        term.question()
        term.send("y")
    term.expect("^kept is still here$")  # the runner kept its state
    term.expect("Done.")
    assert term.exit_status() == 0


@pytest.mark.parametrize("key", [ESC, "\x03"])
def test_stop_while_a_reply_streams_keeps_the_partial_reply(spawn, fake_server, key):
    words = " ".join(f"w{i}" for i in range(3000))
    fake_server.script([Reply(text=words, chunk_delay=0.05, chunk_size=6), "Second answer."])
    term = spawn()
    term.task("talk a lot")
    term.expect("w1 ")  # streaming has started
    term.send(key)
    term.expect("Reply interrupted")
    term.task("next task")
    term.expect("Second answer.")
    partial = fake_server.requests[1]["messages"][-2]
    assert partial["role"] == "assistant" and "interrupted by the user" in partial["content"]
    assert "w2999" not in partial["content"]
    assert term.exit_status() == 0


def test_esc_while_waiting_for_the_first_byte_stops_at_once(spawn, fake_server):
    gate = threading.Event()
    fake_server.script([gated("Too late.", gate), "Fine."])
    term = spawn()
    term.task("hello")
    term.expect("waiting for openai/fake-model")
    until(lambda: fake_server.requests)  # the request is at the server, held by the gate
    term.send(ESC)
    term.expect("Reply interrupted")
    term.prompt()
    gate.set()
    term.line("again")
    term.expect("Fine.")
    assert "Too late." not in term.text
    assert term.exit_status() == 0


def oneshot(interp_env, fake_server, *args: str) -> Term:
    cmd = interp_cmd() + [*args, *model_args(fake_server)]
    child = pexpect.spawn(cmd[0], cmd[1:], env=dict(interp_env["env"], TERM="xterm"),
                          cwd=str(interp_env["cwd"]), dimensions=(40, 120), encoding="utf-8",
                          timeout=60)
    return Term(child)


def test_oneshot_ctrl_c_during_a_block_exits_130(interp_env, fake_server):
    fake_server.script([fenced("python", SLEEPER) + LATER, "Model called again."])
    term = oneshot(interp_env, fake_server, "-y", "-e", "sleep")
    term.expect("^sleeping$")
    term.send("\x03")
    assert term.wait() == 130
    assert len(fake_server.requests) == 1
    assert not re.search("^later block ran$", term.text, re.M)


# -- item 2: the status line ----------------------------------------------------------------
def test_status_line_while_waiting_and_running_then_gone(spawn, fake_server, tmp_path):
    gate, go = threading.Event(), tmp_path / "go"
    fake_server.script([gated(fenced("python", gate_file_code(go)), gate), "All done."])
    term = spawn("-y")
    term.task("work")
    term.expect(r"waiting for openai/fake-model · \d+ s · esc to interrupt")
    gate.set()
    term.expect("^waiting$")
    term.expect(r"running python block 1 · \d+ s · esc to interrupt")
    go.touch()
    term.expect("^released$")
    term.expect("All done.")
    term.prompt()
    screen = "\n".join(term.screen())
    assert "esc to interrupt" not in screen  # erased, nothing left behind
    assert re.search(r"^waiting$\n^released$", screen, re.M)
    assert term.quit() == 0


def test_no_status_line_when_stdout_is_not_a_terminal(interp_env, fake_server, tmp_path):
    gate = threading.Event()
    fake_server.script([gated(fenced("python", "print('ran')"), gate), "Answer."])
    cmd = " ".join(interp_cmd() + ["-y", "-e", "go", *model_args(fake_server)])
    out = tmp_path / "out.txt"
    child = pexpect.spawn("bash", ["-c", f"{cmd} > {out}"], env=dict(interp_env["env"],
                          TERM="xterm"), cwd=str(interp_env["cwd"]), dimensions=(40, 120),
                          encoding="utf-8", timeout=60)
    term = Term(child)  # stderr is the terminal, stdout a file
    gate.set()
    term.expect("ran")
    assert term.wait() == 0
    assert "esc to interrupt" not in term.raw + out.read_text()
    assert out.read_text().strip() == "Answer."


# -- item 3: keys never corrupt the transcript ------------------------------------------------
def test_keys_typed_during_a_block_and_a_reply_leave_no_trace(spawn, fake_server, tmp_path):
    go = tmp_path / "go"
    words = " ".join(f"w{i}" for i in range(400))
    fake_server.script([fenced("python", gate_file_code(go)),
                        Reply(text=words + "\n\nFinished talking.", chunk_delay=0.02)])
    term = spawn()
    term.task("work")
    term.question()
    term.send("y")
    term.expect("^waiting$")
    term.send("qqq\x1b[Azz\r")  # type-ahead, an arrow key and Enter while the block runs
    go.touch()
    term.expect("w1 ")
    term.send("kkk\x1b[B")  # ... and while the reply streams
    term.expect("Finished talking.")
    term.prompt()
    screen = term.screen()
    joined = "\n".join(screen)
    for stray in ("qqq", "zz", "kkk", "^[", "[A", "[B"):
        assert stray not in joined
    assert sum("w0 w1 w2" in line for line in screen) == 1  # no stale copy of the reply
    assert screen[-1].rstrip() == ">"  # the prompt is empty
    assert term.quit() == 0


def test_ctrl_c_inside_a_code_fence_shows_the_prose_once(spawn, fake_server):
    prose = "\n".join(f"Prose line {i} explains the plan." for i in range(6))
    code = "\n".join(f"x{i} = {i}" for i in range(400))
    fake_server.script([Reply(text=f"{prose}\n```python\n{code}\n```\n", chunk_delay=0.02,
                              chunk_size=6)])
    term = spawn()
    term.task("plan")
    term.expect("x30 = 30")
    term.send("\x03")
    term.expect("Reply interrupted")
    term.prompt()
    screen = term.screen()
    for i in range(6):
        assert sum(f"Prose line {i} explains" in line for line in screen) == 1
    assert not any("esc to interrupt" in line for line in screen)
    assert term.quit() == 0


def test_keys_before_a_question_do_not_answer_it(spawn, fake_server, tmp_path):
    go = tmp_path / "go"
    reply = fenced("python", gate_file_code(go)) + LATER
    fake_server.script([reply, "Done."])
    term = spawn()
    term.task("go")
    term.question()
    term.send("y")
    term.expect("^waiting$")
    term.send("y\x1b[A")  # typed before block 2's question is shown
    go.touch()
    term.expect("^released$")
    term.question()
    term.send("n")
    term.expect("Reason")
    term.line("")
    term.expect("declined")
    term.prompt()
    assert not re.search("^later block ran$", term.text, re.M)
    assert not any("^[[A" in line for line in term.screen())
    assert term.quit() == 0
