"""A block's own exit ends the block, not the runner: `set -e` and friends in bash, SystemExit in
Python, and pasted console sessions (issue 17)."""

from __future__ import annotations

import subprocess
import textwrap

import pytest

from languages.python import PythonRunner
from languages.shell import STOPPED_NOTE, ShellRunner

pytestmark = pytest.mark.usefixtures("no_leaked_processes")


def block(text: str) -> str:
    return textwrap.dedent(text).strip("\n")


@pytest.fixture
def sh(make_runner, tmp_path):
    runner = make_runner(ShellRunner, cwd=str(tmp_path))
    return runner


@pytest.fixture
def py(make_runner, tmp_path):
    return make_runner(PythonRunner, cwd=str(tmp_path))


def keep_state(sh, collect, tmp_path):
    """Variables, functions and the directory of a first block, to check they survive."""
    (tmp_path / "sub").mkdir()
    out, res = collect(sh, "kept=42; greet() { echo hi \"$1\"; }; cd sub")
    assert res.ok


def state_survived(sh, collect, tmp_path) -> None:
    out, res = collect(sh, 'echo "$kept $(greet you) $PWD"; echo "$-"; false; echo "after false"')
    assert res.ok and not res.restarted
    first, flags, last = out.splitlines()
    assert first == f"42 hi you {tmp_path / 'sub'}" and last == "after false"
    assert "e" not in flags and "u" not in flags  # the next block runs without -e or -u


# -- shell -------------------------------------------------------------------------------------

@pytest.mark.parametrize("options", ["set -e", "set -eo pipefail", "set -euo pipefail",
                                     "set -o errexit", "set -e -x"])
def test_set_e_stops_the_block_at_its_first_failure_and_keeps_the_shell(options, sh, collect,
                                                                        tmp_path):
    keep_state(sh, collect, tmp_path)
    out, res = collect(sh, block(f"""
        {options}
        echo one
        ls /no/such/dir
        echo not reached
    """))
    assert "one" in out and "not reached" not in out and "No such file" in out
    assert res.status == "error" and res.exit_code == 2 and not res.restarted and not res.died
    assert STOPPED_NOTE in res.notes
    assert any("errexit" in note and "reset" in note for note in res.notes)
    assert "set -e" in res.summary()
    state_survived(sh, collect, tmp_path)


def test_set_e_stops_inside_a_function_and_a_loop(sh, collect, tmp_path):
    keep_state(sh, collect, tmp_path)
    out, res = collect(sh, block("""
        set -e
        work() { echo "start $1"; return 7; echo "never"; }
        for i in 1 2 3; do work "$i"; echo "after $i"; done
        echo not reached
    """))
    assert out == "start 1\n" and res.exit_code == 7 and STOPPED_NOTE in res.notes
    state_survived(sh, collect, tmp_path)


@pytest.mark.parametrize("ending", ["true", "false"])
def test_set_x_traces_the_block_s_commands_and_nothing_of_interp_s(ending, sh, collect):
    out, res = collect(sh, f"set -ex\necho one\n{ending}")
    # ("++": bash counts the sourcing of the block's file as a level)
    assert out == f"++ echo one\none\n++ {ending}\n"  # not the ERR trap, not the block's end
    assert res.ok == (ending == "true")
    out, res = collect(sh, "echo two; echo three >&2")  # tracing is off, stderr is back
    assert out == "two\nthree\n" and res.ok


SCRIPTS = [
    "set -e\nif false; then echo no; fi\nfalse || echo 'or branch'\n! false\necho alive",
    "set -e\nx=$(false; echo substituted)\necho \"x=$x\"\nfalse && true\necho after-and",
    "set -e\n( false; echo 'subshell, ignored context' ) || echo 'subshell failed'\necho next",
    "set -e\n( false; echo 'subshell not reached' )\necho 'not reached either'",
    "set -e\nf() { false; echo 'in f after false'; }\nif f; then echo 'f ok'; fi\nf\necho no",
    "set -eo pipefail\nfalse | true\necho no",
    "set -e\nfalse | true\necho 'pipe ok without pipefail'\n{ false; echo no; }\necho no",
    "set -u\necho \"${unset_but_defaulted:-default}\"\necho \"$unset_var\"\necho no",
]


@pytest.mark.parametrize("script", SCRIPTS)
def test_set_e_and_u_behave_as_in_a_bash_script(script, sh, collect, tmp_path):
    """What a block prints and its status are what `bash script` gives, and bash survives."""
    path = tmp_path / "script.sh"
    path.write_text(script + "\n")
    expected = subprocess.run(["bash", str(path)], capture_output=True, text=True, cwd=tmp_path)
    out, res = collect(sh, script)

    def lines(text: str) -> list[str]:  # error lines name the file: compare their presence only
        return [line for line in text.splitlines() if "unbound variable" not in line]

    assert lines(out) == lines(expected.stdout + expected.stderr)
    assert ("unbound variable" in out) == ("unbound variable" in expected.stderr)
    assert res.exit_code == expected.returncode and not res.restarted
    assert collect(sh, "echo still here")[0] == "still here\n"


def test_set_u_stops_the_block_at_an_unset_variable(sh, collect, tmp_path):
    keep_state(sh, collect, tmp_path)
    out, res = collect(sh, block("""
        set -u
        echo "before"
        echo "value: $no_such_variable"
        echo not reached
    """))
    assert out.startswith("before\n") and "no_such_variable: unbound variable" in out
    assert "not reached" not in out and res.exit_code == 1 and not res.restarted
    assert any("nounset" in note for note in res.notes)
    state_survived(sh, collect, tmp_path)


def test_pipefail_applies_only_to_its_block(sh, collect):
    out, res = collect(sh, "set -o pipefail; false | true")
    assert res.exit_code == 1
    out, res = collect(sh, "false | true")
    assert res.ok and res.exit_code == 0


def test_a_block_without_options_is_unchanged(sh, collect):
    out, res = collect(sh, "false\necho after")
    assert out == "after\n" and res.ok and res.notes == ()


def test_explicit_exit_still_ends_the_shell(sh, collect):
    collect(sh, "kept=1")
    out, res = collect(sh, "set -e\nexit 4")
    assert res.status == "died" and res.exit_code == 4 and res.restarted
    assert collect(sh, "echo ${kept:-gone}")[0] == "gone\n"


def test_syntax_error_reports_and_runs_nothing(sh, collect):
    out, res = collect(sh, "echo first\nif then fi")
    assert "syntax error" in out and "first" not in out and res.exit_code == 2
    assert collect(sh, "echo fine")[0] == "fine\n"


# -- python --------------------------------------------------------------------------------------

@pytest.mark.parametrize("code, status, exit_code, shown", [
    ("import sys\nsys.exit(0)", "ok", 0, ""),
    ("import sys\nsys.exit()", "ok", 0, ""),
    ("exit()", "ok", 0, ""),
    ("quit()", "ok", 0, ""),
    ("import sys\nsys.exit(3)", "error", 3, ""),
    ("exit(2)", "error", 2, ""),
    ("import sys\nsys.exit('bad input file')", "error", 1, "bad input file\n"),
    ("def main():\n    raise SystemExit(5)\nmain()", "error", 5, ""),
    ("print('before')\nimport sys\nsys.exit(0)\nprint('after')", "ok", 0, "before\n"),
])
def test_system_exit_ends_the_block_and_keeps_the_interpreter(code, status, exit_code, shown, py,
                                                              collect):
    collect(py, "kept = 41")
    out, res = collect(py, code)
    assert (out, res.status, res.exit_code) == (shown, status, exit_code)
    assert not res.died and not res.restarted
    assert any("sys.exit" in note and "variables were kept" in note for note in res.notes)
    out, res = collect(py, "kept + 1")
    assert (out, res.status) == ("42\n", "ok")


def test_exit_does_not_close_standard_input(py, collect):
    collect(py, "exit()")
    out, res = collect(py, "import sys\nprint(sys.stdin.closed)\ninput()")
    assert out.startswith("False\n") and "EOFError" in out


def test_os_exit_still_ends_the_process(py, collect):
    collect(py, "kept = 1")
    out, res = collect(py, "import os\nos._exit(0)")
    assert res.died and res.restarted
    assert "kept" not in collect(py, "print(dir())")[0]


def test_pasted_console_session_runs_its_code_lines(py, collect):
    out, res = collect(py, block("""
        >>> import math
        >>> values = [1, 2, 3]
        >>> sum(values)
        6
        >>> for v in values:
        ...     print(v * 10)
        ...
        10
        20
        30
        >>> total = sum(values) * 2
    """))
    assert res.ok and out == "10\n20\n30\n"
    assert any("pasted console session" in note for note in res.notes)
    assert collect(py, "total, math.pi > 3")[0] == "(12, True)\n"


def test_pasted_ipython_session_and_indented_doctest(py, collect):
    out, res = collect(py, "In [1]: x = 2\n\nIn [2]: x ** 10\nOut[2]: 1024\n")
    assert res.ok and out == "1024\n"
    out, res = collect(py, "    >>> y = x + 1\n    >>> y\n    3\n")
    assert res.ok and out == "3\n"


def test_console_paste_errors_point_at_the_original_line(py, collect):
    out, res = collect(py, ">>> a = 1\n1\n>>> 1 / 0\n")
    assert res.status == "error" and "ZeroDivisionError" in out and 'line 3' in out


def test_real_syntax_error_is_reported_as_before(py, collect):
    out, res = collect(py, "x = (1,\nprint('x')")
    assert res.status == "error" and "SyntaxError" in res.error and res.notes == ()
