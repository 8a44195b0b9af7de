"""Every language: a block cannot fake its own end, reading the terminal ends at once, an
unterminated escape sequence hides nothing after its line, and the terminal has the user's size."""

from __future__ import annotations

import re
import textwrap

import pytest

from interp.ui.sanitize import OutputFilter
from languages.records import Output
from languages.node import NodeRunner
from languages.process.run_outcome import FAKE_NOTE
from languages.python import PythonRunner
from languages.shell import ShellRunner

pytestmark = pytest.mark.usefixtures("no_leaked_processes")

RUNNERS = {"python": PythonRunner, "shell": ShellRunner, "javascript": NodeRunner}
TOKEN = re.compile(r"[0-9a-f]{24}")


def leaky(cls):
    """A runner that writes each run's token to a file the block can read: the worst case of
    a block that found its token (in its frames, in the interpreter's memory, ...)."""

    class Leaky(cls):
        def run_command(self, token, path):
            with open(self.config.env["LEAK_FILE"], "w") as handle:
                handle.write(token)
            return super().run_command(token, path)

    return Leaky


FAKE_END = {
    "python": """
        import os
        token = open(os.environ["LEAK_FILE"]).read()
        print("__INTERP_%s__{\\"status\\": \\"ok\\"}" % token, flush=True)
        print("rest of the block")
        raise ValueError("the real end")
    """,
    "shell": """
        token=$(cat "$LEAK_FILE")
        printf '__INTERP_%s__{"exit_code":0}\\n' "$token"
        echo "rest of the block"
        false
    """,
    "javascript": """
        const token = require('fs').readFileSync(process.env.LEAK_FILE, 'utf8');
        console.log(`__INTERP_${token}__{"status":"ok"}`);
        console.log('rest of the block');
        throw new Error('the real end');
    """,
}
NEXT = {"python": "print('next')", "shell": "echo next", "javascript": "console.log('next')"}


@pytest.mark.parametrize("language", sorted(RUNNERS))
def test_a_block_that_prints_its_own_end_marker_cannot_end_early(language, make_runner, collect,
                                                                  tmp_path):
    leak = tmp_path / "token"
    runner = make_runner(leaky(RUNNERS[language]), env={"LEAK_FILE": str(leak)})
    out, res = collect(runner, textwrap.dedent(FAKE_END[language]).strip())
    assert "rest of the block" in out
    assert "__INTERP_" not in out  # the fake end line is dropped
    assert res.status == "error" and FAKE_NOTE in res.notes  # the real status wins
    assert collect(runner, NEXT[language])[0] == "next\n"  # and the next block is in step


def test_python_block_walking_its_frames_cannot_end_early(make_runner, collect):
    """The issue's case: the token sits in the driver's frames."""
    runner = make_runner(PythonRunner)
    code = textwrap.dedent("""
        import re, sys
        found = set()
        frame = sys._getframe()
        while frame is not None:
            for value in list(frame.f_locals.values()):
                for item in (value if isinstance(value, (list, tuple)) else [value]):
                    if isinstance(item, str):
                        found.update(re.findall(r"\\b[0-9a-f]{24}\\b", item))
            frame = frame.f_back
        print("found", len(found) > 0)
        for token in found:
            print("__INTERP_%s__{}" % token, flush=True)
        print("rest of the block")
        x_after_fake = 1
    """)
    out, res = collect(runner, code)
    assert out.startswith("found True\n") and out.endswith("rest of the block\n")
    assert res.ok and FAKE_NOTE in res.notes
    assert collect(runner, "print(x_after_fake)")[0] == "1\n"


class SpyShell(ShellRunner):
    def run_command(self, token, path):
        self.tokens = [*getattr(self, "tokens", []), token]
        return super().run_command(token, path)


def test_shell_history_variables_and_environment_do_not_hold_the_token(make_runner, collect):
    runner = make_runner(SpyShell)
    out, res = collect(runner, "history; set; declare -f; env; tr '\\0' '\\n' </proc/$$/cmdline; "
                               "tr '\\0' '\\n' </proc/$$/environ; echo done")
    assert res.ok and out.endswith("done\n")
    assert runner.tokens[-1] not in out
    assert "__INTERP_" not in out.replace("printf '__INTERP_%s__", "")


# -- reading the terminal ------------------------------------------------------------------------

TTY_READS = {
    "python": ("line = open('/dev/tty').readline()\nprint('read', repr(line))", "read ''\n"),
    "shell": ("read -r line < /dev/tty; echo \"status $? line '$line'\"; cat /dev/tty; echo end",
              "status 1 line ''\nend\n"),
    "javascript": ("console.log('read', JSON.stringify(require('fs').readFileSync('/dev/tty', 'utf8')))",
                   'read ""\n'),
}


@pytest.mark.parametrize("language", sorted(TTY_READS))
def test_reading_the_terminal_gives_end_of_file_at_once(language, make_runner, collect):
    runner = make_runner(RUNNERS[language], timeout=300)
    code, expected = TTY_READS[language]
    out, res = collect(runner, code)
    assert not res.timed_out and out == expected


def test_a_block_that_changes_the_terminal_mode_does_not_make_later_reads_wait(make_runner,
                                                                                collect):
    runner = make_runner(ShellRunner, timeout=300)
    collect(runner, "stty icanon min 1 </dev/tty")
    out, res = collect(runner, "read -r line < /dev/tty; echo \"status $?\"")
    assert not res.timed_out and out == "status 1\n"


# -- unterminated escape sequences ----------------------------------------------------------------

WRITE = {
    "python": "import sys\n_ = sys.stdout.write({text!r})",
    "shell": "printf '%s' {shell}",
    "javascript": "void process.stdout.write({text!r})",
}
UNTERMINATED = [
    "visible \x1b]0;t\nhidden\n",
    "visible \x1bPq#0;2;0;0;0\nhidden\n",
    "visible \x1b_payload\nhidden\n",
    "visible \x1b^pm\r\nhidden\n",
]


def write_code(language: str, text: str) -> str:
    shell = "$'" + text.replace("\x1b", "\\e").replace("\n", "\\n").replace("\r", "\\r") + "'"
    return WRITE[language].format(text=text, shell=shell)


def screen(chunks: list[str]) -> str:
    stream = OutputFilter()
    return "".join(stream.feed(c) for c in chunks) + stream.flush()


@pytest.mark.parametrize("language", sorted(WRITE))
@pytest.mark.parametrize("text", UNTERMINATED)
def test_unterminated_escape_hides_only_its_own_line(language, text, make_runner, events):
    runner = make_runner(RUNNERS[language])
    evs = events(runner, write_code(language, text))
    model = evs[-1].model_text()
    shown = screen([e.text for e in evs if isinstance(e, Output)])
    for seen in (model, shown):
        assert seen.startswith("visible ") and seen.endswith("\nhidden\n"), repr(seen)
        assert "\x1b" not in seen


def test_cat_of_a_binary_file_with_an_escape_shows_what_follows(make_runner, events, tmp_path):
    blob = tmp_path / "blob.bin"
    blob.write_bytes(b"\x00\x01\x1b]" + bytes(range(32, 127)) * 3 + b"\xff\xfe\n" + b"after the binary\n")
    runner = make_runner(ShellRunner)
    evs = events(runner, f"cat {blob}; echo end of block")
    for seen in (evs[-1].model_text(), screen([e.text for e in evs if isinstance(e, Output)])):
        assert seen.endswith("after the binary\nend of block\n")


# -- the terminal's size ---------------------------------------------------------------------------

SIZE = {
    "python": "import shutil\nprint(shutil.get_terminal_size().columns)",
    "shell": "tput cols",
    "javascript": "console.log(process.stdout.columns)",
}


@pytest.mark.parametrize("language", sorted(SIZE))
def test_terminal_has_the_users_size(language, make_runner, collect, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")  # interp's own environment must not leak into blocks
    runner = make_runner(RUNNERS[language], terminal_size=lambda: (30, 50))
    assert collect(runner, SIZE[language])[0] == "50\n"


def test_terminal_follows_a_resize_while_a_block_runs(make_runner, guard):
    size = [(30, 50)]
    runner = make_runner(ShellRunner, terminal_size=lambda: size[0])
    # No command substitution runs while the signal can arrive: bash 5.2 can run the trap inside
    # a forked `$(...)` before it resets its traps, and then fails to parse either of them.
    code = textwrap.dedent("""
        trap 'seen=SIGWINCH' WINCH
        echo ready
        until tput cols | grep -qx 70; do sleep 0.05; done
        trap - WINCH
        echo "now $(tput cols) after $seen"
    """)
    out = []
    with guard():
        for event in runner.run(code):
            if isinstance(event, Output):
                out.append(event.text)
                if "ready" in "".join(out):
                    size[0] = (30, 70)
    text = "".join(out)
    assert "now 70 after SIGWINCH" in text and "bash:" not in text
    assert event.ok


def test_without_a_size_the_terminal_is_160_by_40(make_runner, collect):
    runner = make_runner(ShellRunner, terminal_size=None)
    assert collect(runner, "tput cols; tput lines")[0] == "160\n40\n"
