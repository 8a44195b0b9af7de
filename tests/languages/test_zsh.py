"""zsh blocks: run by a real zsh where it is installed; elsewhere by bash, and the result says so."""

from __future__ import annotations

import os
import shutil

import pytest

from languages import default_registry
from languages.shell import STOPPED_NOTE
from languages.zsh import STAND_IN_NOTE, ZshRunner

pytestmark = pytest.mark.usefixtures("no_leaked_processes")

WHICH = "echo ${ZSH_VERSION:+zsh}${BASH_VERSION:+bash}"


@pytest.mark.fast
def test_zsh_has_its_own_runner_judged_by_the_shell_rules():
    registry = default_registry(plugins=False)
    assert registry.resolve("zsh") is ZshRunner and registry.canonical("ZSH") == "zsh"
    assert registry.rules_language("zsh") == "shell" and registry.rules_language("sh") == "shell"
    assert registry.rules_language("py") == "python"
    assert "zsh" not in registry.names()  # the model is offered `shell`, as before


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed on this machine")
def test_a_zsh_block_runs_in_zsh_when_it_is_installed(make_runner, collect, tmp_path):
    runner = make_runner(ZshRunner, cwd=str(tmp_path))
    out, result = collect(runner, f"{WHICH}; typeset -A seen; seen[a]=1; cd {tmp_path}")
    assert out == "zsh\n" and result.status == "ok" and not result.notes
    out, result = collect(runner, "echo ${seen[a]} $PWD; ls no-such-file-*")
    assert out.startswith(f"1 {tmp_path}\n") and "no matches found" in out
    assert result.status == "error" and result.exit_code == 1
    out, result = collect(runner, "set -e; echo one; false; echo two")
    assert out == "one\n" and result.exit_code == 1 and STOPPED_NOTE in result.notes
    out, result = collect(runner, "f() { false; echo in-f; }; h() { f; echo in-h; }; set -e; h; echo no")
    assert out == "" and result.exit_code == 1 and STOPPED_NOTE in result.notes
    out, result = collect(runner, "set -x; [[ -o errexit ]] && echo errexit on; echo still ${seen[a]}")
    assert out.endswith("still 1\n") and "errexit on" not in out
    out, result = collect(runner, "echo untraced")
    assert out == "untraced\n" and result.status == "ok"
    out, result = collect(runner, 'read "x?name? "; echo "[$x]"')
    assert out == "[]\n" and result.status == "error" and result.read_eof
    out, result = collect(runner, "print -l a b > f; while read l; do echo $l; done < f")
    assert out == "a\nb\n" and result.ok and not result.read_eof


def test_without_zsh_a_zsh_block_runs_in_bash_and_says_so(make_runner, collect, tmp_path):
    only_bash = tmp_path / "bin"
    only_bash.mkdir()
    os.symlink(shutil.which("bash"), only_bash / "bash")
    runner = make_runner(ZshRunner, cwd=str(tmp_path), env={"PATH": str(only_bash)})
    out, result = collect(runner, f"{WHICH}; x=5")
    assert out == "bash\n" and result.status == "ok"
    assert result.notes == (STAND_IN_NOTE,) and "ran in bash" in STAND_IN_NOTE
    assert STAND_IN_NOTE in result.summary()
    out, result = collect(runner, "echo $x; false")
    assert out == "5\n" and result.exit_code == 1 and STAND_IN_NOTE in result.notes


def test_the_model_is_told_that_bash_runs_its_shell_blocks(fake_server, interp_env, tmp_path):
    from helpers import model_args, run_interp

    only_bash = tmp_path / "bin"  # no zsh on PATH, though it is the login shell
    only_bash.mkdir()
    os.symlink(shutil.which("bash"), only_bash / "bash")
    env = dict(interp_env, env=dict(interp_env["env"], SHELL="/usr/bin/zsh", PATH=str(only_bash)))
    fake_server.script([f"```zsh\n{WHICH}\n```", "Done."])
    proc = run_interp(["-y", "-e", "which shell runs this?", *model_args(fake_server)], env)
    assert proc.returncode == 0, proc.stderr
    prompt = fake_server.requests[0]["messages"][0]["content"]
    assert "\n- Shell: bash runs shell blocks (the user's own login shell is /usr/bin/zsh)\n" \
        in prompt and "Shell: /usr/bin/zsh" not in prompt
    told = fake_server.requests[1]["messages"][-1]["content"]
    assert "bash\n" in told and STAND_IN_NOTE in told
    fake_server.script(["Done."])
    env["env"]["SHELL"] = shutil.which("bash")
    assert run_interp(["-y", "-e", "hi", *model_args(fake_server)], env).returncode == 0
    assert "\n- Shell: bash runs shell blocks\n" in fake_server.requests[-1]["messages"][0]["content"]
