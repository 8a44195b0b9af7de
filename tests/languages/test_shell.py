"""The shell runner, driven through a real bash on a pty."""

from __future__ import annotations

import os
import re
import textwrap
import threading

import pytest

from languages.protocol import Runner, RunnerConfig
from languages.records import READ_EOF, Output, Result
from languages.shell import ShellRunner

pytestmark = pytest.mark.usefixtures("no_leaked_processes")


@pytest.fixture(scope="module")
def sh(tmp_path_factory):
    """A shared bash for tests that leave it alive and usable."""
    runner = ShellRunner(RunnerConfig(grace=5.0, cwd=str(tmp_path_factory.mktemp("shcwd"))))
    runner.start()
    yield runner
    runner.stop()


@pytest.fixture
def fresh(make_runner, tmp_path):
    """A bash of its own, for tests that kill or restart it."""
    return make_runner(ShellRunner, cwd=str(tmp_path))


def block(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


# -- interface ------------------------------------------------------------------

def test_interface(sh, events):
    assert ShellRunner.name == "shell"
    assert set(ShellRunner.aliases) >= {"bash", "sh"}
    assert isinstance(sh, Runner)
    evs = events(sh, "echo hello")
    assert isinstance(evs[-1], Result)
    assert "".join(e.text for e in evs[:-1]) == "hello\n"
    res = evs[-1]
    assert res.status == "ok" and res.exit_code == 0 and res.output.text == "hello\n"


def test_output_is_streamed_before_the_block_ends(sh, guard, tmp_path):
    flag = tmp_path / "go"
    code = block(f"""
        echo first
        for i in $(seq 3000); do [ -e '{flag}' ] && break; sleep 0.01; done
        [ -e '{flag}' ] && echo second found || echo second missing
    """)
    seen = []
    with guard():
        for ev in sh.run(code):
            seen.append(ev)
            if isinstance(ev, Output) and "first" in ev.text:
                assert "second" not in ev.text
                flag.touch()
    assert "".join(e.text for e in seen[:-1]) == "first\nsecond found\n"
    first = next(i for i, e in enumerate(seen) if isinstance(e, Output) and "first" in e.text)
    second = next(i for i, e in enumerate(seen) if isinstance(e, Output) and "second" in e.text)
    assert first < second < len(seen) - 1


def test_no_prompt_or_echo_in_output(sh, collect):
    out, res = collect(sh, "x=1\necho $x\n\n# a comment\ntrue")
    assert (out, res.status) == ("1\n", "ok")


# -- state ------------------------------------------------------------------------

def test_state_persists(sh, collect, tmp_path):
    (tmp_path / "sub").mkdir()
    out, res = collect(sh, block(f"""
        cd '{tmp_path}/sub'
        export INTERP_SHELL_VAR=exported
        plain=kept
        greet() {{ echo "hi $1"; }}
        alias sayit='echo aliased'
    """))
    assert res.ok, out
    out, res = collect(sh, 'pwd; echo "$INTERP_SHELL_VAR $plain"; greet bob; sayit\n'
                           'sh -c \'echo "child sees $INTERP_SHELL_VAR"\'')
    assert res.ok
    assert out.splitlines() == [os.path.realpath(tmp_path / "sub"), "exported kept", "hi bob",
                                "aliased", "child sees exported"]


def test_restart_loses_state(make_runner, collect):
    runner = make_runner(ShellRunner)
    collect(runner, "kept=yes")
    assert collect(runner, "echo ${kept-unset}")[0] == "yes\n"
    runner.restart()
    assert collect(runner, "echo ${kept-unset}")[0] == "unset\n"


# -- exit status -----------------------------------------------------------------------

@pytest.mark.parametrize("code, exit_code", [
    ("true", 0),
    ("false", 1),
    ("false; true", 0),
    ("true; false", 1),
    ("(exit 7)", 7),
    ("ls /definitely/not/here 2>/dev/null", 2),
    ("no_such_command_interp_xyz 2>/dev/null", 127),
])
def test_last_command_decides_exit_status(sh, collect, code, exit_code):
    out, res = collect(sh, code)
    assert res.exit_code == exit_code
    assert res.status == ("ok" if exit_code == 0 else "error")
    assert res.ok == (exit_code == 0)
    assert not res.died


def test_error_output_and_status(sh, collect):
    out, res = collect(sh, "echo to-stderr >&2; no_such_command_interp_xyz")
    assert res.status == "error" and res.exit_code == 127
    assert "to-stderr" in out and "no_such_command_interp_xyz" in out
    assert "exit status 127" in res.summary()


def test_multiline_constructs(sh, collect):
    code = block("""
        total=0
        for i in 1 2 3; do

            total=$((total + i))

        done
        if [ "$total" -eq 6 ]; then
            echo "six"
        else
            echo "not six"
        fi
        cat <<EOF
        heredoc $total
        EOF
        case x in
          x) echo matched ;;
        esac
    """)
    out, res = collect(sh, code)
    assert (out, res.status) == ("six\nheredoc 6\nmatched\n", "ok")


# -- end-of-output marker ----------------------------------------------------------------

class SpyShell(ShellRunner):
    """Records the token of each run's marker."""

    def run_command(self, token, path):
        self.tokens = [*getattr(self, "tokens", []), token]
        return super().run_command(token, path)


def test_each_run_has_a_fresh_marker_and_old_markers_are_just_output(make_runner, collect):
    runner = make_runner(SpyShell)
    collect(runner, "echo one")
    spoof = f'__INTERP_{runner.tokens[0]}__{{"exit_code": 9}}'
    out, res = collect(runner, f"echo '{spoof}'; echo still running")
    assert runner.tokens[0] != runner.tokens[1]
    assert (res.status, res.exit_code) == ("ok", 0)
    assert out == spoof + "\nstill running\n"


@pytest.mark.parametrize("text", [
    ">>> ", "... ", "$ ", "# ", "__END__", "__INTERP_", "__INTERP_abc", "__",
    "__INTERP_0123456789abcdef01234567__{}\n", '__INTERP_deadbeef__{"exit_code": 3}\n',
])
def test_prompt_and_marker_lookalikes_are_output(sh, collect, text):
    escaped = text.replace("\n", "\\n")
    out, res = collect(sh, f"printf '%b' '{escaped}'; shell_after=1")
    assert (out, res.status, res.exit_code) == (text, "ok", 0)
    assert collect(sh, "echo $shell_after")[0] == "1\n"


def test_random_marker_lines_do_not_end_the_run(sh, collect):
    code = ("for i in 1 2 3; do echo \"__INTERP_$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \\n')__{}\"; done\n"
            "printf __INTERP_; echo tail")
    out, res = collect(sh, code)
    assert res.ok
    lines = out.splitlines()
    assert len(lines) == 4 and all(line.startswith("__INTERP_") and len(line) == 37 for line in lines[:3])
    assert lines[3] == "__INTERP_tail"


# -- stdin ----------------------------------------------------------------------------------

def test_read_gets_end_of_file_and_the_result_says_so(sh, collect):
    out, res = collect(sh, 'read -p "name? " x; echo "status $? [$x]"')
    assert out == "status 1 []\n" and res.status == "error" and res.exit_code == 0
    assert res.read_eof and res.summary() == READ_EOF
    out, res = collect(sh, "read x")
    assert res.exit_code != 0 and res.status == "error" and res.read_eof
    out, res = collect(sh, "read -n 1 k; echo \"[$k]\"")
    assert out == "[]\n" and res.read_eof
    out, res = collect(sh, "read t < /dev/tty; echo \"[$t]\"")  # the terminal: nobody types
    assert out == "[]\n" and res.read_eof
    # reads that were not of the block's empty input: a file, a pipe, another descriptor
    out, res = collect(sh, "printf 'a\\nb\\n' > f; while read l; do echo $l; done < f; "
                           "echo q | { read y; echo $y; }; read -u 3 z 3< /dev/null; echo end")
    assert out == "a\nb\nq\nend\n" and res.ok and not res.read_eof
    out, res = collect(sh, "echo next")
    assert res.ok and not res.read_eof  # said for one block only


def test_cat_without_arguments_finishes(sh, collect):
    out, res = collect(sh, "cat; echo done")
    assert (out, res.status) == ("done\n", "ok")


def test_python_input_from_bash_finishes(sh, collect):
    out, res = collect(sh, "python3 -c 'input()'")
    assert res.status == "error" and res.exit_code == 1
    assert "EOFError" in out


# -- interrupt and timeout ---------------------------------------------------------------------

def _interrupt_after(runner, code, guard, marker="started"):
    seen = []
    with guard():
        for ev in runner.run(code):
            seen.append(ev)
            if isinstance(ev, Output) and marker in ev.text and len(seen) == 1:
                threading.Timer(0.2, runner.interrupt).start()
    return "".join(e.text for e in seen[:-1]), seen[-1]


@pytest.mark.parametrize("code", [
    "echo started; sleep 100; echo not reached",
    "echo started; while :; do :; done; echo not reached",
    "python3 -c 'import time; print(\"started\", flush=True); time.sleep(100)'; echo not reached",
], ids=["sleep", "busy-loop", "child-python"])
def test_interrupt_stops_the_block_and_keeps_state(sh, collect, guard, code):
    collect(sh, "survivor=still-here; cd /")
    out, res = _interrupt_after(sh, code, guard)
    assert res.status == "interrupted" and res.interrupted
    assert not (res.died or res.restarted or res.timed_out)
    assert out.startswith("started\n") and "not reached" not in out
    out, res = collect(sh, "echo after")
    assert (out, res.status) == ("after\n", "ok")
    assert collect(sh, "echo $survivor; pwd")[0] == "still-here\n/\n"


@pytest.mark.parametrize("options", ["set -e", "set -ex", "set -euo pipefail"])
def test_an_interrupted_block_s_options_do_not_reach_the_next(sh, collect, guard, options):
    """Ctrl-C drops the rest of the run command's line, __interp_end included: the runner's
    ping after it puts the shell back."""
    out, res = _interrupt_after(sh, f"{options}; echo started; false || :; sleep 100", guard)
    assert res.status == "interrupted" and not res.restarted
    out, res = collect(sh, 'false; echo "after $-"; echo "$undefined" | cat')
    assert out == "after hiBEs\n\n" and res.ok and res.notes == ()


def test_per_run_timeout_keeps_state(sh, collect):
    collect(sh, "timeout_survivor=7")
    out, res = collect(sh, "while :; do :; done", timeout=0.5)
    assert res.status == "timeout" and res.timed_out and not res.restarted
    out, res = collect(sh, "echo $timeout_survivor")
    assert (out, res.status) == ("7\n", "ok")


def test_config_timeout(make_runner, collect):
    runner = make_runner(ShellRunner, timeout=0.5)
    collect(runner, "v=still")
    out, res = collect(runner, "sleep 100")
    assert res.status == "timeout" and res.timed_out and not res.restarted
    out, res = collect(runner, "sleep 1; echo $v", timeout=30)
    assert (out, res.status) == ("still\n", "ok")


def test_trap_ignoring_sigint_is_killed_and_restarted(fresh, collect):
    collect(fresh, "lost=1")
    out, res = collect(fresh, "trap '' INT; sleep 100", timeout=0.5)
    assert res.status == "timeout" and res.restarted and res.state_lost
    assert "restarted" in res.summary()
    out, res = collect(fresh, "echo ${lost-gone}")
    assert (out, res.status) == ("gone\n", "ok")


@pytest.mark.parametrize("starter", [
    "sleep 1000 & echo pid=$!",
    "(trap '' INT; exec sleep 1000) & echo pid=$!",
    "set -m; sleep 1000 & echo pid=$!; set +m",
], ids=["background", "background-ignoring-int", "own-process-group"])
def test_no_orphan_survives_a_kill(fresh, collect, pid_gone, starter):
    out, res = collect(fresh, f"trap '' INT; {starter}; sleep 100", timeout=0.5)
    pid = int(re.search(r"pid=(\d+)", out).group(1))
    assert res.status == "timeout" and res.restarted
    assert pid_gone(pid), f"background process {pid} survived"
    assert collect(fresh, "echo next")[0] == "next\n"


def test_stop_kills_background_jobs(make_runner, collect, pid_gone):
    runner = make_runner(ShellRunner)
    out, res = collect(runner, "sleep 1000 & echo $!")
    pid = int(out.split()[0])
    assert res.ok and not pid_gone(pid, wait=0)
    runner.stop()
    assert pid_gone(pid)


# -- death ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("code, exit_code, signal_name", [
    ("exit 4", 4, None),
    ("exit", 0, None),
    ("kill -9 $$", None, "SIGKILL"),
    ("kill -HUP $$", None, "SIGHUP"),
])
def test_death_is_reported_and_runner_restarts(fresh, collect, code, exit_code, signal_name):
    collect(fresh, "doomed=1")
    out, res = collect(fresh, code)
    assert res.status == "died" and res.died and res.restarted and res.state_lost
    assert res.exit_code == exit_code and res.signal == signal_name
    out, res = collect(fresh, "echo ${doomed-gone}")
    assert (out, res.status) == ("gone\n", "ok")


# -- large and strange output ------------------------------------------------------------------

def test_large_output(fresh, guard, collect):
    streamed = 0
    with guard(120):
        for ev in fresh.run("yes 0123456789abcdef | head -n 1000000"):
            if isinstance(ev, Output):
                streamed += len(ev.text)
    total = 17 * 1_000_000
    assert isinstance(ev, Result) and ev.ok
    assert streamed == ev.output.total_chars == total
    model = ev.output.for_model()
    assert len(model) < 20_000 and ev.output.spool_path in model
    assert model.startswith("0123456789abcdef\n") and model.endswith("0123456789abcdef\n")
    assert os.path.getsize(ev.output.spool_path) == total


def test_crlf_and_escapes(sh, collect):
    code = r"printf 'a\r\nb\r\n\033[1;32mgreen\033[0m \033]0;title\007 nul:\000:\n\377\376 bad \303'"
    out, res = collect(sh, code)
    assert res.ok
    assert out.startswith("a\nb\n\x1b[1;32mgreen")
    assert "\ufffd" in out and "\x00" in out
    model = res.output.for_model()
    assert model.startswith("a\nb\ngreen ")
    assert "\x1b" not in model and "\x00" not in model and "title" not in model and "nul::" in model
    assert collect(sh, "echo fine")[0] == "fine\n"


# -- environment ---------------------------------------------------------------------------------

def test_environment_and_cwd(make_runner, collect, tmp_path, monkeypatch):
    monkeypatch.setenv("INTERP_TEST_FROM_OS", "os-value")
    monkeypatch.setenv("INTERP_TEST_OVERRIDDEN", "os")
    monkeypatch.delenv("MPLBACKEND", raising=False)
    runner = make_runner(ShellRunner, cwd=str(tmp_path),
                         env={"INTERP_TEST_FROM_CONFIG": "cfg", "INTERP_TEST_OVERRIDDEN": "config"})
    code = ('for n in INTERP_TEST_FROM_OS INTERP_TEST_FROM_CONFIG INTERP_TEST_OVERRIDDEN '
            'NO_COLOR PAGER PYTHON_BASIC_REPL; do echo "$n=${!n}"; done; '
            'echo "MPLBACKEND=${MPLBACKEND-unset}"; pwd')
    out, res = collect(runner, code)
    assert res.ok, out
    assert out.splitlines() == [
        "INTERP_TEST_FROM_OS=os-value",
        "INTERP_TEST_FROM_CONFIG=cfg",
        "INTERP_TEST_OVERRIDDEN=config",
        "NO_COLOR=1",
        "PAGER=cat",
        "PYTHON_BASIC_REPL=1",
        "MPLBACKEND=unset",
        os.path.realpath(tmp_path),
    ]


def test_sigpipe_has_its_default_action(sh, collect):
    # The test process (Python) ignores SIGPIPE; bash and its children must not inherit that.
    out, res = collect(sh, 'yes | head -n 1; echo "${PIPESTATUS[@]}"; trap -p PIPE')
    assert (out, res.status) == ("y\n141 0\n", "ok")


# -- pasted terminal sessions -----------------------------------------------------------------

def test_a_pasted_terminal_session_runs_its_commands_only(sh, events):
    evs = events(sh, "$ X=pasted\nignored output line\n$ echo $X \\\n>   again\nsomething else")
    res = evs[-1]
    assert res.status == "ok" and res.output.text == "pasted again\n"
    assert any("pasted terminal session" in note for note in res.notes)
    plain = events(sh, "echo plain")[-1]  # the next block is not a paste: no note
    assert plain.output.text == "plain\n" and not any("terminal session" in n for n in plain.notes)


def test_the_output_lines_of_a_pasted_session_never_run(sh, events):
    res = events(sh, "$ true\nno_such_output_command\n$ no_such_command_here")[-1]
    assert res.exit_code == 127
    assert "no_such_command_here" in res.output.text and "output_command" not in res.output.text
