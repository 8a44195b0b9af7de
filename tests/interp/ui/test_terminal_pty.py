"""The real `interp` in a pty: planted escape sequences never reach the terminal.

The fake model's replies and the block's output carry screen-clearing, title, clipboard,
conceal, cursor-movement, C1 and bidi sequences; the bytes the pty receives must hold none
of them, and the approval panel must show the code's own escapes as `\\e`.
"""

from __future__ import annotations

import pexpect

from helpers import interp_cmd, model_args
from fake_openai import Reply
from pty_terminal import Term, fenced

PLANTED = ("\x1b[2J\x1b[3J\x1b[H\x1b]0;pwned\x07\x1b]52;c;cm0gLXJmIH4=\x07\x1b[8mhidden\x1b[28m"
           "\x1b[13A\x1b[12;1H\x1b[?1049h\x1bc\x9b2J\x9d0;pwned\x9c\u202eevil\u202c")
# printf in the block writes the same kinds of sequence, some split across writes.
BLOCK = ("printf 'out1 \\033[2J \\033]0;pwned\\007 \\033[8mhidden\\033[0m \\033[13A"
         " \\033]52;c;Zm9v\\007 \\033[?1049h'\n"
         "sleep 0.3; printf '\\033]0;pw'; sleep 0.3; printf 'ned2\\007 \\033['; sleep 0.3\n"
         "printf '13A out2\\n'")
# In the code itself, raw escapes: the panel must show them, not send them.
CODE = "s = '\x1b]0;pwned\x07 \x1b[2J \u202e'"
FORBIDDEN = ("\x1b[2J", "\x1b[3J", "\x1b]0;", "\x1b]2;", "\x1b]52;", "\x1b[8m", "\x1b[13A",
             "\x1b[12;1H", "\x1b[?1049h", "\x1bc", "\x9b", "\x9d", "\x9c", "\u202e", "\u202c")


def assert_clean(raw: str) -> None:
    for needle in FORBIDDEN:
        assert needle not in raw, f"{needle!r} reached the terminal"


def test_interactive_run_sends_no_planted_sequence(spawn, fake_server):
    reply = (f"Intro {PLANTED} more\n" + fenced("shell", BLOCK, before="")
             + fenced("python", f"{CODE}\nprint('code ran', len(s))", before=f"And {PLANTED}"))
    fake_server.script([Reply(text=reply, chunk_size=3), Reply(text=f"Done {PLANTED} end",
                                                               chunk_size=2)])
    term = spawn()
    term.task("go")
    term.question()
    term.send("y")
    term.expect(r"^out1 .*hidden")
    term.expect(r"out2$")
    start = term.pos
    term.question()
    panel = term.since(start)
    assert "s = '\\e]0;pwned\\x07 \\e[2J \\u202e'" in panel  # made visible in the panel
    assert "hidden characters shown as" in panel
    term.send("y")
    term.expect("^code ran 17$")
    term.expect("Done .*hidden.*evil end")
    assert term.exit_status() == 0
    assert_clean(term.raw)
    told = fake_server.requests[1]["messages"][-1]["content"]
    assert "out1" in str(told) and "\x1b" not in str(told)  # the model gets clean output too


def test_oneshot_final_answer_and_progress_are_clean(interp_env, fake_server):
    fake_server.script([fenced("shell", BLOCK, before=PLANTED), f"Answer {PLANTED} end"])
    cmd = interp_cmd() + ["-y", "-e", "go", *model_args(fake_server)]
    child = pexpect.spawn(cmd[0], cmd[1:], env=dict(interp_env["env"], TERM="xterm"),
                          cwd=str(interp_env["cwd"]), dimensions=(40, 120), encoding="utf-8",
                          timeout=60)
    term = Term(child)
    term.expect(r"out2")
    term.expect(r"Answer .*hidden.*evil end")
    assert term.wait() == 0
    assert_clean(term.raw)
