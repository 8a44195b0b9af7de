"""Running one hook command for real (bash): its JSON on standard input, a time bound that
kills it and what it started, bounded output, and an environment without the model's key."""

from __future__ import annotations

import json
import os
import time

from interp.hooks.process import OUTPUT_LIMIT, hook_environment, run_command
from interp.secrets import runner_env_remove


def env_for(tmp_path, **extra):
    return hook_environment(str(tmp_path), frozenset(), {**os.environ, **extra})


def test_the_command_reads_its_json_and_its_status_and_output_come_back(tmp_path):
    ran = run_command("python3 -c 'import json,sys; d=json.load(sys.stdin); "
                      "print(d[\"tool_name\"]); sys.exit(3)' && true", json.dumps(
                          {"tool_name": "execute"}), 30, str(tmp_path), env_for(tmp_path))
    assert (ran.exit_code, ran.stdout, ran.problem) == (3, "execute\n", None)


def test_it_runs_in_the_project_folder_which_its_variables_name(tmp_path):
    ran = run_command('pwd; echo "$INTERP_PROJECT_DIR $CLAUDE_PROJECT_DIR"', "", 30,
                      str(tmp_path), env_for(tmp_path))
    assert ran.stdout.split() == [str(tmp_path)] * 3


def test_a_hanging_hook_and_what_it_started_are_killed_at_its_time_bound(tmp_path):
    pidfile = tmp_path / "child.pid"
    started = time.monotonic()
    ran = run_command(f"sleep 300 & echo $! > {pidfile}; wait", "", 1, str(tmp_path),
                      env_for(tmp_path))
    assert ran.exit_code is None and ran.problem == "timed out after 1 s"
    assert time.monotonic() - started < 60  # a hang guard, not a timing assertion
    child = int(pidfile.read_text())
    deadline = time.monotonic() + 30
    while os.path.exists(f"/proc/{child}") and time.monotonic() < deadline:
        stat = open(f"/proc/{child}/stat").read()
        if stat[stat.rfind(")") + 2] == "Z":
            break
        time.sleep(0.05)
    assert not os.path.exists(f"/proc/{child}") or "Z" in open(f"/proc/{child}/stat").read()


def test_output_is_bounded_and_a_hook_that_does_not_read_its_input_is_fine(tmp_path):
    ran = run_command("head -c 5000000 /dev/zero | tr '\\0' x", "y" * 2_000_000, 60,
                      str(tmp_path), env_for(tmp_path))
    assert ran.exit_code == 0 and len(ran.stdout) == OUTPUT_LIMIT


def test_a_command_that_cannot_start_is_a_problem_not_an_exception(tmp_path):
    ran = run_command("true", "", 5, str(tmp_path / "missing"), env_for(tmp_path))
    assert ran.exit_code is None and ran.problem.startswith("cannot start")


def test_hooks_never_see_the_models_key(tmp_path):
    environ = {**os.environ, "OPENAI_API_KEY": "sk-secret-123456", "INTERP_API_KEY": "k-123456"}
    remove = runner_env_remove("openai/gpt-4o", None, environ=environ)
    env = hook_environment(str(tmp_path), remove, environ)
    ran = run_command("env", "", 30, str(tmp_path), env)
    assert "sk-secret-123456" not in ran.stdout and "k-123456" not in ran.stdout
    assert "PATH=" in ran.stdout
