"""One Python for every language: a shell block's `python` and `pip` are the interpreter that
Python blocks use (the chosen one, the active virtualenv's, else interp's own); real bash."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from languages.python import PythonRunner
from languages.shell import ShellRunner

pytestmark = pytest.mark.usefixtures("no_leaked_processes")


def test_shell_python_and_pip_are_interps_own_python(make_runner, collect, tmp_path):
    sh = make_runner(ShellRunner, cwd=str(tmp_path))
    out, result = collect(sh, "python -c 'import sys; print(sys.executable)'\n"
                              "python3 -c 'import sys; print(sys.prefix)'\npip --version")
    assert result.ok, out
    lines = out.splitlines()
    assert lines[0] == sys.executable and lines[1] == sys.prefix
    assert os.path.realpath(sys.prefix) in os.path.realpath(lines[2].split(" from ")[1])


def test_shell_and_python_blocks_share_the_chosen_virtualenv(make_runner, collect, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    sh = make_runner(ShellRunner, cwd=str(tmp_path), python=python)
    py = make_runner(PythonRunner, cwd=str(tmp_path), python=python)
    out, _ = collect(sh, "python -c 'import sys; print(sys.prefix)'; pip --version; "
                         "echo status $?")
    assert out.splitlines()[0] == str(venv)
    assert "No module named pip" in out  # the venv's own pip (it has none), not the system's
    assert out.splitlines()[-1] != "status 0"
    shown, _ = collect(py, "import subprocess\n"
                           "print(subprocess.run(['python', '-c', 'import sys; print(sys.prefix)'],"
                           " capture_output=True, text=True).stdout.strip())")
    assert shown.strip() == str(venv)  # a program a Python block starts gets it too


def test_the_commands_live_first_on_path_once(make_runner, collect, tmp_path):
    sh = make_runner(ShellRunner, cwd=str(tmp_path))
    out, _ = collect(sh, 'echo "$PATH"; command -v pip')
    path, pip = out.splitlines()
    first = path.split(os.pathsep)[0]
    assert pip == os.path.join(first, "pip")
    assert path.split(os.pathsep).count(first) == 1
