"""Approval rules in the real interactive `interp`, in a pseudo-terminal, against the fake
OpenAI server (see test_interactive.py for the `Term` helper). Waits are hang guards only."""

from __future__ import annotations

import re
import tomllib

from helpers import config_file, write_config
from pty_terminal import QUESTION, Term, fenced, last_user

MENU = r"Which\? \[1-(\d), Enter or Esc to go back\]: "




def runs_unasked(term: Term, line: str) -> None:
    """Wait for `line` of output and check that no approval question came before it."""
    start = term.pos
    term.expect(f"^{re.escape(line)}$")
    assert not re.search(QUESTION, term.since(start))


def test_a_offers_choices_and_save_writes_the_config(spawn, fake_server, interp_env):
    path = write_config(interp_env, 'model = "ignored"  # mine\n')
    block = fenced("shell", "echo hello-rule")
    fake_server.script([block, "One.", block, "Two.", fenced("shell", "echo other"), "Three.",
                        block, "Four."])
    term = spawn()
    term.task("greet")
    assert term.question() == "shell"
    term.send("a")
    term.expect("Always allow, without asking:")
    term.expect(r"1\) `shell: echo hello-rule \*` for this session")
    term.expect(r"2\) all shell code for this session")
    term.expect(r"3\) `shell: echo hello-rule \*` from now on \(saved to config\.toml\)")
    term.expect(r"4\) all shell code from now on")
    assert term.expect(MENU).group(1) == "4"
    term.send("3")
    term.expect("saved to")
    term.expect("^hello-rule$")
    term.expect("One.")
    text = path.read_text()
    assert text.startswith('model = "ignored"  # mine\n')
    assert tomllib.loads(text)["approval"]["allow"] == ["shell: echo hello-rule *"]

    term.task("greet again")
    runs_unasked(term, "hello-rule")
    term.expect("Two.")
    term.task("something else")
    term.question()  # other commands still ask
    term.send("y")
    term.expect("^other$")
    term.expect("Three.")
    assert term.exit_status() == 0

    again = spawn()  # a new interp reads the saved rule
    again.task("greet once more")
    runs_unasked(again, "hello-rule")
    again.expect("Four.")
    assert again.exit_status() == 0


def test_menu_enter_goes_back_and_session_choice_is_not_saved(spawn, fake_server, interp_env):
    fake_server.script([fenced("python", "print('py ran')"), "One.",
                        fenced("python", "print('py again')"), "Two."])
    term = spawn()
    term.task("go")
    term.question()
    term.send("a")
    assert term.expect(MENU).group(1) == "2"  # python: no command prefix, only the language
    term.line("")  # back to the question
    term.expect(QUESTION)
    term.send("a")
    term.expect(MENU)
    term.send("1")
    term.expect("for this session")
    term.expect("^py ran$")
    term.task("again")
    runs_unasked(term, "py again")
    term.expect("Two.")
    assert term.exit_status() == 0
    assert not config_file(interp_env).exists()


def test_rules_lists_and_removes(spawn, fake_server, interp_env):
    path = write_config(interp_env, '[approval]\nallow = ["bash: ls *"]\ndeny = ["bash: rm *"]\n')
    fake_server.script([fenced("shell", "echo listed"), "Done."])
    term = spawn()
    term.task("go")
    term.question()
    term.send("a")
    term.expect(MENU)
    term.send("1")  # `shell: echo listed *` for this session
    term.expect("^listed$")
    term.expect("Done.")
    term.task("/rules")
    term.expect("Approval mode: ask")
    term.expect(r"1  deny   bash: rm \*\s+\(config\)")
    term.expect(r"2  allow  bash: ls \*\s+\(config\)")
    term.expect(r"3  allow  shell: echo listed \*\s+\(session\)")
    term.task("/rules remove 1")
    term.expect(r"Removed deny rule `bash: rm \*` \(config\) and from\s+\S*config\.toml")
    term.task("/rules remove shell: echo listed *")
    term.expect(r"Removed allow rule `shell: echo listed \*` \(session\)")
    term.task("/rules remove 7")
    term.expect("there is no rule '7'")
    term.task("/rules")
    term.expect(r"1  allow  bash: ls \*\s+\(config\)")
    term.expect("Config file:")
    assert term.exit_status() == 0
    data = tomllib.loads(path.read_text())["approval"]
    assert data["deny"] == [] and data["allow"] == ["bash: ls *"]


def test_mode_auto_runs_blocks_but_deny_still_blocks(spawn, fake_server, interp_env):
    write_config(interp_env, '[approval]\ndeny = ["bash: touch *"]\n')
    reply = fenced("shell", "echo auto-ran") + "```shell\ntouch made.txt\n```\n"
    fake_server.script([reply, "Denied, fine.", fenced("shell", "echo asked"), "Done."])
    term = spawn()
    term.task("/mode")
    term.expect("Approval mode: ask")
    term.task("/mode auto")
    term.expect("Approval mode set to: auto")
    term.task("go")
    runs_unasked(term, "auto-ran")
    term.expect(r"the deny rule `bash: touch \*` matched `touch made.txt`")
    term.expect("Denied, fine.")
    assert not (interp_env["cwd"] / "made.txt").exists()
    told = last_user(fake_server.requests[1])
    assert "denied by policy" in told and "touch made.txt" in told
    term.task("/auto")  # the toggle agrees with /mode
    term.expect("Auto-approve is OFF")
    term.task("/mode")
    term.expect("Approval mode: ask")
    term.task("go again")
    term.question()
    term.send("y")
    term.expect("^asked$")
    term.expect("Done.")
    assert term.exit_status() == 0
