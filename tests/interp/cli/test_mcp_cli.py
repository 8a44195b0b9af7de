"""`interp mcp` as a command: nothing on stdout but the protocol, what it serves on stderr, one
line for each thing that stops it from starting, and the SDK imported only when it serves."""

from __future__ import annotations

import socket
import subprocess

import pytest

from helpers import run_interp, run_main, write_config

from interp.cli.mcp_command import NO_SDK


def test_stdio_prints_nothing_on_stdout_and_ends_when_its_input_does(interp_env):
    proc = run_interp(["mcp"], interp_env, input="")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.startswith("interp mcp: serving MCP on standard input and output\n")
    assert "need the user's approval, asked through the client (MCP elicitation)" in proc.stderr


def test_without_the_sdk_it_says_how_to_install_it(interp_env):
    proc = run_main(["mcp"], interp_env, before="sys.modules['mcp'] = None")
    assert proc.returncode == 2
    assert proc.stderr == NO_SDK + "\n"
    assert "pip install 'interp[mcp]'" in NO_SDK


@pytest.mark.parametrize("args", [["--help"], ["mcp", "--help"], ["sessions"]])
def test_the_sdk_is_imported_only_to_serve(interp_env, args):
    proc = run_main(args, interp_env,
                    after="print('imported' if 'mcp' in sys.modules else 'not')")
    assert proc.stdout.splitlines()[-1] == "not"


def test_a_token_in_config_toml_is_refused(interp_env):
    write_config(interp_env, 'mcp_token = "hunter2-secret"\n')
    proc = run_interp(["mcp"], interp_env, input="")
    assert proc.returncode == 0
    assert ("mcp_token ignored: tokens are not read from config.toml (it is stored in plain "
            "text); put the token of `interp mcp --http` in INTERP_MCP_TOKEN") in proc.stderr
    assert "hunter2-secret" not in proc.stderr


def test_a_port_in_use_is_one_line(interp_env):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = run_interp(["mcp", "--http", "--port", str(port)], interp_env)
    assert proc.returncode == 2
    assert proc.stderr == (f"interp mcp: cannot listen on 127.0.0.1:{port}: Address already in "
                           f"use (choose another port with --port)\n")


@pytest.mark.parametrize("args, says", [
    (["--cwd", "/no/such/dir"], "interp mcp: --cwd /no/such/dir: No such file or directory\n"),
    (["--sandbox", "tight"], "interp mcp: --sandbox: must be one of off, workspace, read-only, "
                             "got 'tight'\n"),
    (["--timeout", "0"], "interp mcp: --timeout: must be a positive number of seconds, got "
                         "0.0\n"),
    (["--http", "--port", "70000"], "interp mcp: --port must be between 0 and 65535, not "
                                    "70000\n"),
])
def test_bad_flags_are_one_line(interp_env, args, says):
    proc = run_interp(["mcp", *args], interp_env, input="")
    assert proc.returncode == 2
    assert proc.stderr == says


def test_cwd_is_where_blocks_run(interp_env, tmp_path):
    import anyio
    from mcp_kit import stdio_client, text

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    async def body():
        with anyio.fail_after(120):
            async with stdio_client(interp_env, "-y", "--cwd", str(elsewhere)) as client:
                return await client.call_tool("run_code", {"language": "shell", "code": "pwd"})

    assert str(elsewhere) in text(anyio.run(body))


def test_sigterm_stops_the_runners_and_ends_with_the_signal(interp_env):
    """A service manager's SIGTERM while a client is connected: every runner goes too."""
    import json
    import signal

    from helpers import interp_cmd
    from mcp_kit import kill_all, wait_gone

    proc = subprocess.Popen([*interp_cmd(), "mcp", "-y"], env=interp_env["env"],
                            cwd=interp_env["cwd"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    pids: list[int] = []
    try:
        for message in (
                {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                    "protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"}}},
                {"jsonrpc": "2.0", "method": "notifications/initialized"},
                {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                    "name": "run_code", "arguments": {"language": "shell",
                                                      "code": "sleep 300 & echo $$ $!"}}}):
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
        replies = [json.loads(proc.stdout.readline()) for _ in range(2)]
        said = replies[1]["result"]["content"][0]["text"]
        pids = [int(pid) for pid in said.split("```")[1].split()]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == -signal.SIGTERM
        assert wait_gone(pids) == []
    finally:
        proc.kill()
        proc.wait()
        kill_all(pids)
