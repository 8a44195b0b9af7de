"""`--sandbox`, `--network` and `--pass-env` through the real `interp` command."""

from __future__ import annotations

import shutil

import pytest

from helpers import model_args, run_interp

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None,
                                reason="bubblewrap is not installed (.ci/run installs it)")

PROBE = """```python
import socket
results = []
for target in ["/etc/interp-sandbox-probe", "inside.txt"]:
    try:
        open(target, "w").write("x")
        results.append(f"{target}: written")
    except OSError as exc:
        results.append(f"{target}: {exc.strerror}")
try:
    socket.create_connection(("127.0.0.1", PORT), timeout=3).close()
    results.append("network: reached")
except OSError as exc:
    results.append("network: unreachable")
print(results)
```"""


def _run(fake_server, interp_env, *flags):
    fake_server.script([PROBE.replace("PORT", str(fake_server.port)), "done"])
    proc = run_interp(["-y", *flags, "-e", "probe the sandbox", *model_args(fake_server)],
                      interp_env)
    assert proc.returncode == 0, proc.stderr
    return fake_server.requests[-1]["messages"][-1]["content"], proc


def test_workspace_sandbox_blocks_writes_outside_the_cwd_and_the_network(fake_server, interp_env):
    report, proc = _run(fake_server, interp_env, "--sandbox", "workspace")
    assert "/etc/interp-sandbox-probe: Read-only file system" in report
    assert "inside.txt: written" in report
    assert "network: unreachable" in report
    assert (interp_env["cwd"] / "inside.txt").read_text() == "x"
    assert "workspace sandbox" in proc.stderr


def test_network_flag_lets_the_sandbox_reach_the_network(fake_server, interp_env):
    report, _ = _run(fake_server, interp_env, "--sandbox", "workspace", "--network")
    assert "network: reached" in report


def test_read_only_sandbox_protects_the_cwd_too(fake_server, interp_env):
    report, _ = _run(fake_server, interp_env, "--sandbox", "read-only")
    assert "inside.txt: Read-only file system" in report
    assert not (interp_env["cwd"] / "inside.txt").exists()


def test_a_missing_bwrap_is_one_clear_line_and_nothing_runs(fake_server, interp_env):
    interp_env["env"]["PATH"] = "/nonexistent"
    fake_server.script([PROBE.replace("PORT", "9")])
    cmd_env = dict(interp_env)
    proc = run_interp(["-y", "--sandbox", "workspace", "-e", "probe", *model_args(fake_server)],
                      cmd_env)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "interp: the workspace sandbox needs bubblewrap: install it (apt-get install bubblewrap)"
        " or pass --sandbox off"]
    assert fake_server.requests == []


def test_pass_env_lets_one_key_variable_through(fake_server, interp_env):
    interp_env["env"]["OPENAI_API_KEY"] = "sk-env-openai-abcdef"
    fake_server.script(["```bash\necho key=${OPENAI_API_KEY:-unset}\n```", "done", 
                        "```bash\necho key=${OPENAI_API_KEY:-unset}\n```", "done"])
    run_interp(["-y", "-e", "show", *model_args(fake_server)], interp_env)
    hidden = fake_server.requests[1]["messages"][-1]["content"]
    run_interp(["-y", "--pass-env", "OPENAI_API_KEY", "-e", "show", *model_args(fake_server)],
               interp_env)
    passed = fake_server.requests[3]["messages"][-1]["content"]
    assert "key=unset" in hidden
    assert "key=[REDACTED]" in passed or "key=sk-env-openai-abcdef" in passed
