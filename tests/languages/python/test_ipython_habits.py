"""IPython habits in Python blocks: !cmd, %magics, %%cell magics and display() (issue 9.11)."""

from __future__ import annotations

import sys
import textwrap

import pytest

from languages.python import PythonRunner

pytestmark = pytest.mark.usefixtures("no_leaked_processes")


@pytest.fixture(scope="module")
def py(tmp_path_factory):
    from languages.protocol import RunnerConfig

    runner = PythonRunner(RunnerConfig(grace=5.0, cwd=str(tmp_path_factory.mktemp("habits"))))
    runner.start()
    yield runner
    runner.stop()


def block(text: str) -> str:
    return textwrap.dedent(text).strip("\n")


def test_shell_lines_run_with_expansion_and_capture(py, collect):
    out, res = collect(py, block("""
        name = "world"
        !echo hello {name.upper()} $name
        files = !printf 'a\\nb\\n'
        print(files, _exit_code)
        !exit 3
        print("status", _exit_code)
    """))
    assert res.ok
    assert out == "hello WORLD world\n['a', 'b'] 0\nstatus 3\n"
    assert any("IPython" in note for note in res.notes)


def test_shell_line_inside_an_indented_block(py, collect):
    out, res = collect(py, "for i in range(2):\n    !echo line {i}\n")
    assert res.ok and out == "line 0\nline 1\n"


def test_pip_installs_into_the_runners_own_interpreter(py, collect):
    out, res = collect(py, "%pip --version")
    assert res.ok
    assert "pip " in out and sys.prefix.split("/")[-1] in out  # the runner's python is interp's


def test_matplotlib_inline_and_other_setup_magics_are_harmless(py, collect):
    out, res = collect(py, "%matplotlib inline\n%load_ext autoreload\n%autoreload 2\nx = 5\nx")
    assert res.ok and out == "5\n"


def test_cd_pwd_env_and_time(py, collect, tmp_path):
    out, res = collect(py, block(f"""
        %cd {tmp_path}
        here = %pwd
        %env GREETING=hi
        import os
        print(here == os.getcwd(), os.environ["GREETING"])
        %time total = sum(range(10))
        total
    """))
    assert res.ok
    lines = out.splitlines()
    assert lines[0] == str(tmp_path) and lines[1] == "env: GREETING=hi" and lines[2] == "True hi"
    assert lines[3].startswith("Wall time: ") and lines[4] == "45"


def test_percent_inside_a_string_is_left_alone(py, collect):
    code = 's = """\n%d items\n!not a command\n""" % 3\n!echo real\nprint(s.strip())'
    out, res = collect(py, code)
    assert res.ok and out == "real\n3 items\n!not a command\n"


def test_unknown_magic_is_one_clear_error(py, collect):
    out, res = collect(py, "%lsmagic_nonexistent")
    assert res.status == "error" and "Traceback" not in out
    assert res.error.startswith("UsageError: %lsmagic_nonexistent is not available")


def test_writefile_and_bash_cell_magics(py, collect, tmp_path):
    target = tmp_path / "hello.py"
    out, res = collect(py, f"%%writefile {target}\nprint('hello from the file')\n")
    assert res.ok and out == f"Writing {target}\n"
    assert target.read_text() == "print('hello from the file')\n"
    out, res = collect(py, f"%run {target}")
    assert res.ok and out == "hello from the file\n"
    out, res = collect(py, "%%bash\nfor i in 1 2; do echo bash $i; done\n")
    assert res.ok and out == "bash 1\nbash 2\n"


def test_capture_cell_magic(py, collect):
    out, res = collect(py, "%%capture kept\nprint('quiet')\n")
    assert res.ok and out == ""
    assert collect(py, "kept.stdout")[0] == "'quiet\\n'\n"


def test_display_shows_values_like_a_last_line(py, run):
    out, displays, res = run(py, block("""
        import pandas as pd
        display(pd.DataFrame({"a": [1, 2]}))
        display(42, "text")
        print("after")
    """))
    assert res.ok and out == "42\n'text'\nafter\n"
    assert len(displays) == 1 and displays[0].kind == "table"
    assert displays[0].data["columns"] == ["a"]


def test_display_of_a_figure_saves_it_once(py, run, tmp_path):
    out, displays, res = run(py, block("""
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots()
        ax.plot([1, 2, 3])
        display(fig)
    """))
    assert res.ok and [d.kind for d in displays] == ["image"]
