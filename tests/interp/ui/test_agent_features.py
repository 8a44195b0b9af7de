"""What people expect of an agent, in the real `interp` in a pty (and --json): AGENTS.md
instructions, /compact and automatic compaction, background processes with /ps and /kill, and
a block waiting for keyboard input stopped. The fake OpenAI server scripts the model; runners
are real."""

from __future__ import annotations

import json
import re
import shutil
import socket
import time
from pathlib import Path

import pytest

from helpers import hang_guard, model_args, run_interp
from pty_terminal import fenced

# what the real Qwen2.5-Coder-1.5B wrote through interp when it compacted such a session
SUMMARY = ("Asked: \"Now print the sum of those squares.\"\nFound:\n- The code snippet already "
           "computes the squares of numbers from 1 to 150 and prints them.\n- The output confirms "
           "the correctness of the computation.\nFiles and names: No new files or names were "
           "created.\nLeft to do: No new tasks were planned next.")


def wrapped(pattern: str) -> str:
    """`pattern` as rich may wrap the line: any space may be a line break."""
    return pattern.replace(" ", r"\s+")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return state[state.rfind(")") + 2] in "ZX"


def scripted(server, replies: list, summaries: list) -> None:
    """Script the fake server: summary requests get `summaries` in turn, others `replies` (when
    the context is full enough to compact depends on how tokens are counted)."""
    replies, summaries = list(replies), list(summaries)

    def answer(request: dict):
        asked = "You write the summary" in str(request["messages"][0].get("content"))
        queue = summaries if asked else replies
        return queue.pop(0) if queue else "(nothing scripted)"

    server.script([answer] * 40)


def numbers(start: int) -> str:
    return fenced("python", f"print(list(range({start}, {start + 300})))")


# -- AGENTS.md ------------------------------------------------------------------------------------
def test_agents_md_is_read_said_and_sent(spawn, fake_server, interp_env):
    work = interp_env["cwd"]
    (work / "AGENTS.md").write_text("Always answer in French.\n")
    user = Path(interp_env["env"]["XDG_CONFIG_HOME"]) / "interp" / "AGENTS.md"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text("Prefer pathlib over os.path.\n")
    fake_server.script(["Bonjour."])
    term = spawn()
    term.expect(r"Instructions read from\s+\S+AGENTS\.md,\s+\S+AGENTS\.md\.")
    term.task("hello")
    term.expect("Bonjour.")
    system = fake_server.requests[0]["messages"][0]["content"]
    assert system.startswith("You are interp")
    assert system.index("Prefer pathlib") < system.index("Always answer in French.")
    assert term.exit_status() == 0


def test_no_instructions_flag_and_variable_skip_them(spawn, fake_server, interp_env):
    (interp_env["cwd"] / "AGENTS.md").write_text("Always answer in French.\n")
    fake_server.script(["Hello."])
    term = spawn("--no-instructions")
    term.task("hello")
    term.expect("Hello.")
    assert "Instructions read" not in term.text
    assert "French" not in fake_server.requests[0]["messages"][0]["content"]
    assert term.exit_status() == 0
    fake_server.script(["Hello again."])
    done = run_interp(["-y", "--json", "-e", "hi", *model_args(fake_server)],
                      dict(interp_env, env=dict(interp_env["env"], INTERP_INSTRUCTIONS="0")))
    started = json.loads(done.stdout.splitlines()[0])
    assert started["type"] == "session.started" and started["instructions"] == []
    assert "French" not in fake_server.requests[-1]["messages"][0]["content"]


# -- compaction -----------------------------------------------------------------------------------
def test_compaction_automatic_and_on_request_with_tokens(spawn, fake_server):
    scripted(fake_server, [numbers(0), numbers(300), numbers(600), "Done.", numbers(900),
                           "Printed."], [SUMMARY, SUMMARY, SUMMARY])
    term = spawn("-y", env={"INTERP_CONTEXT_WINDOW": "2000"})
    term.task("print the numbers")
    term.expect(wrapped(r"Context was getting full: compacted the conversation: \d+ earlier "
                        r"messages summarised by the model \(\S+ → \S+ tokens, \d+% of the "
                        r"window\); the full history is kept\."))
    term.expect("Done.")
    term.task("/tokens")
    term.expect(r"Context now: [\d,]+ of 2,000 tokens \(\d+% full; compacted at 70%\)\.")
    term.task("more numbers")
    term.expect("Printed.")
    term.task("/compact the number ranges")
    term.expect("Compacting: the model writes a summary")
    term.expect(wrapped(r"Compacted the conversation: \d+ earlier messages summarised by the "
                        r"model, focused on 'the number ranges'"))
    assert "Pay most attention to: the number ranges." in \
        fake_server.requests[-1]["messages"][-1]["content"]
    assert term.exit_status() == 0


def test_compaction_in_json(fake_server, interp_env):
    scripted(fake_server, [numbers(0), numbers(300), numbers(600), "Done."], [SUMMARY])
    env = dict(interp_env, env=dict(interp_env["env"], INTERP_CONTEXT_WINDOW="2000"))
    done = run_interp(["-y", "--json", "-e", "print numbers", *model_args(fake_server)], env)
    events = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = [e["type"] for e in events]
    assert done.returncode == 0 and kinds.count("context.compacting") == 1
    compacted = next(e for e in events if e["type"] == "context.compacted")
    assert compacted["auto"] and compacted["window"] == 2000
    assert compacted["tokens_after"] < compacted["tokens_before"]


# -- background processes -------------------------------------------------------------------------
def test_a_server_left_running_is_listed_killed_and_stopped_at_exit(spawn, fake_server):
    first, second = free_port(), free_port()
    fake_server.script([
        fenced("shell", f"python3 -m http.server {first} --bind 127.0.0.1 &"), "Started.",
        fenced("shell", f"python3 -m http.server {second} --bind 127.0.0.1 > web.log 2>&1 &"),
        "Started another."])
    term = spawn()
    term.task("start a web server")
    term.question()
    term.send("y")
    pid = int(term.expect(wrapped(r"Left running: pid (\d+) \S*python\S* -m http\.server"))
              .group(1))
    term.expect("Started.")
    assert f"pid {pid}" in fake_server.requests[1]["messages"][-1]["content"]
    assert "left running in the background" in fake_server.requests[1]["messages"][-1]["content"]
    term.task("/ps")
    term.expect(wrapped(rf"1\. pid {pid}, shell block 1, running \d+ s: \S+ -m http\.server "
                        rf"{first}"))
    term.task("/kill 1")
    term.expect(rf"Stopped pid {pid}")
    assert gone(pid)
    term.task("/ps")
    term.expect("No processes left running by blocks.")
    term.task("another one")
    term.question()
    term.send("y")
    other = int(term.expect(wrapped(r"Left running: pid (\d+) [^;]*; output: \S*web\.log"))
                .group(1))
    term.expect("Started another.")
    assert term.exit_status() == 0
    with hang_guard(10, "the server outlived interp"):
        while not gone(other):
            time.sleep(0.05)


def test_background_processes_in_json(fake_server, interp_env):
    fake_server.script([fenced("shell", "sleep 30 &"), "Left it."])
    done = run_interp(["-y", "--json", "-e", "sleep in the background",
                       *model_args(fake_server)], interp_env)
    events = [json.loads(line) for line in done.stdout.splitlines()]
    found = next(e for e in events if e["type"] == "block.background")
    assert found["index"] == 1 and found["processes"][0]["command"] == "sleep 30"
    assert found["processes"][0]["language"] == "shell" and found["processes"][0]["block"] == 1
    kinds = [e["type"] for e in events]
    assert kinds.index("block.background") < kinds.index("block.finished")
    assert gone(found["processes"][0]["pid"])  # stopped when interp exited



def _approved(spawn, fake_server, code: str, answer: str):
    """interp in a pty that runs one shell block, approved, before the model's `answer`."""
    fake_server.script([fenced("shell", code), answer])
    term = spawn()
    term.task("go on")
    term.question()
    term.send("y")
    term.expect(re.escape(answer))
    return term


def test_many_processes_left_running_are_told_bounded_and_said_once(spawn, fake_server):
    term = _approved(spawn, fake_server, "for i in $(seq 200); do sleep 1000 & done; echo started",
                     "Started them.")
    told = fake_server.requests[1]["messages"][-1]["content"]
    assert "left running in the background: 200 processes: pid " in told
    assert re.search(r"; … \d+ more …; pid \d+ `sleep 1000`", told)
    assert told.count("background-shell.log") == 1  # where their output goes, once
    assert len(told) < 6000  # as a block's output is bounded: its head and tail, a count
    shown = "\n".join(term.screen())
    assert shown.count("Left running:") == 1 and "left running in the background" not in shown
    assert re.search(r"Left running: 200 processes: pid \d+ sleep 1000,.* … \d+ more …, pid",
                     shown.replace("\n", " "))
    assert re.search(r"^✓ ok \(\d+\.\d+ s\)$", shown, re.M)  # the result line, nothing more
    assert term.exit_status() == 0


def test_ps_numbers_stay_the_same_for_the_session(spawn, fake_server):
    term = _approved(spawn, fake_server, "sleep 1001 &\nsleep 1002 &\nsleep 1003 &",
                     "Three sleepers.")
    term.task("/ps")
    first = int(term.expect(r"1\. pid (\d+), shell block 1, running \d+ s: sleep 1001").group(1))
    second = int(term.expect(r"2\. pid (\d+), shell block 1, running \d+ s: sleep 1002").group(1))
    term.expect(r"3\. pid \d+, shell block 1, running \d+ s: sleep 1003")
    term.task("/kill 1")
    term.expect(rf"Stopped pid {first} ")
    term.task("/ps")
    term.expect(r"2\. pid \d+, shell block 1, running \d+ s: sleep 1002")
    term.expect(r"3\. pid \d+, shell block 1, running \d+ s: sleep 1003")
    term.task("/kill 2")  # the number of the old listing: the same process
    term.expect(rf"Stopped pid {second} ")
    term.task("/kill 1")
    term.expect("No process 1 in /ps.")
    assert gone(first) and gone(second)
    assert term.exit_status() == 0

# -- a block waiting for keyboard input -----------------------------------------------------------
def test_a_block_waiting_for_a_key_is_stopped_and_the_model_told(spawn, fake_server):
    fake_server.script([fenced("shell", "read -n 1 -p 'Continue? [y/n] ' answer < /dev/tty"),
                        "It needs input."])
    term = spawn("--timeout", "300")
    term.task("ask me something")
    term.question()
    term.send("y")
    term.expect(r"Continue\? \[y/n\]")
    term.expect(wrapped(r"✗ stopped: it was waiting for keyboard input"))
    term.expect("It needs input.")
    told = fake_server.requests[1]["messages"][-1]["content"]
    assert "waiting for keyboard input" in told and "nothing can be typed into a block" in told
    assert term.exit_status() == 0


def test_a_read_that_hits_end_of_input_is_not_reported_as_ok(spawn, fake_server):
    term = _approved(spawn, fake_server, 'read -p "name? " x; echo "hi $x"', "Said hi.")
    told = fake_server.requests[1]["messages"][-1]["content"]
    assert "hi \n" in told and "Result: a read of its standard input got end of input" in told
    assert "give the input another way" in told and "Result: ok" not in told
    fake_server.script([fenced("shell", "read -n 1 key; echo \"key=$key\""), "Read a key."])
    term.task("read a key")
    term.question()
    term.send("y")
    term.expect("Read a key.")
    shown = " ".join(" ".join(term.screen()).split())
    assert shown.count("✗ a read of its standard input got end of input, so the value read is "
                       "empty") == 2 and "✓ ok" not in shown
    assert term.exit_status() == 0


@pytest.mark.skipif(shutil.which("vi") is None, reason="no vi on this machine")
def test_vi_stopped_for_waiting_leaves_no_swap_file_and_no_screen_in_the_output(
        spawn, fake_server, interp_env):
    (interp_env["cwd"] / "notes.txt").write_text("first line\n")
    fake_server.script([fenced("shell", "vi notes.txt"), "It needs a person."])
    term = spawn()
    term.task("edit the notes")
    term.question()
    start = term.pos
    term.send("y")
    term.expect(wrapped(r"✗ stopped: it was waiting for keyboard input"))
    shown = term.since(start)
    term.expect("It needs a person.")
    told = fake_server.requests[1]["messages"][-1]["content"]
    for screen in (shown, told):  # vi's screen went with it, as in a terminal, said so
        assert "first line" not in screen and "~\n" not in screen and ":qa" not in screen
        assert "[left out: what a full-screen program drew" in " ".join(screen.split())
    assert sorted(p.name for p in interp_env["cwd"].iterdir()) == ["notes.txt"]  # no .swp
    assert term.exit_status() == 0
