"""`run(code, timeout=None, *, block=N)`: the conversation's block number names the code file,
the Python traceback (`<block N>`), figures and the spool file; spool files kept in
`spool_dir` outlive the runner. Real runners through pexpect."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from languages.node import NodeRunner
from languages.python import PythonRunner
from languages.shell import ShellRunner

pytestmark = pytest.mark.usefixtures("no_leaked_processes")


def test_python_traceback_and_figures_carry_the_block_number(make_runner, run, tmp_path):
    pytest.importorskip("matplotlib")
    runner = make_runner(PythonRunner, cwd=str(tmp_path), python=sys.executable,
                         output_dir=str(tmp_path / "figs"))
    text, _, result = run(runner, "x = 1\nraise ValueError('boom')", block=17)
    assert 'File "<block 17>", line 2, in <module>' in text and result.status == "error"
    assert str(tmp_path) not in text  # no temporary file path in the traceback
    code = "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()\nplt.plot([3])"
    _, displays, _ = run(runner, code, block=18)
    assert [Path(d.path).name for d in displays] == ["figure-18-1.png", "figure-18-2.png"]
    text, _, _ = run(runner, "import traceback\ntraceback.print_stack()")  # no number given
    assert "<block 3>" in text  # the runner counts its own runs


def test_shell_and_node_code_files_are_named_by_the_block(make_runner, run, tmp_path):
    shell = make_runner(ShellRunner, cwd=str(tmp_path))
    text, _, _ = run(shell, 'basename "${BASH_SOURCE[0]}"', block=5)
    assert text.strip() == "block-5.sh"
    node = make_runner(NodeRunner, cwd=str(tmp_path))
    text, _, result = run(node, "null.boom", block=9)
    assert result.status == "error" and "block-9.js:1" in text


def test_spool_files_in_spool_dir_outlive_the_runner(make_runner, run, tmp_path):
    spool = tmp_path / "session"
    runner = make_runner(ShellRunner, cwd=str(tmp_path), spool_dir=str(spool),
                         head_chars=100, tail_chars=100)
    _, _, result = run(runner, "seq 1 5000", block=42)
    assert result.output.spool_path == str(spool / "block-42-output.txt")
    _, _, unnumbered = run(runner, "seq 1 3000")
    assert Path(unnumbered.output.spool_path).parent == spool
    runner.stop()
    assert (spool / "block-42-output.txt").read_text().split() == [str(i) for i in range(1, 5001)]
    assert Path(unnumbered.output.spool_path).read_text().count("\n") == 3000


def test_without_spool_dir_the_spool_goes_with_the_runner(make_runner, run, tmp_path):
    runner = make_runner(PythonRunner, cwd=str(tmp_path), head_chars=100, tail_chars=100)
    _, _, result = run(runner, "for i in range(3000): print(i)", block=2)
    path = result.output.spool_path
    assert os.path.exists(path) and not path.startswith(str(tmp_path))
    runner.stop()
    assert not os.path.exists(path)
