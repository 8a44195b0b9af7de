"""`interp acp` as a command: nothing on stdout but the protocol, one clear error for each
line of bad input (and one line on stderr, never a traceback), one line for what stops it from
starting, and the SDK imported only when it serves."""

from __future__ import annotations

import json
import subprocess

import pytest

from helpers import HANG_GUARD, interp_cmd, run_interp, run_main, write_config

from interp.cli.acp_command import NO_SDK


def test_bad_input_gets_one_clear_error_a_line_and_the_agent_goes_on(interp_env):
    lines = ["this is not json", "[1, 2]", "42", '{"jsonrpc": "2.0"}',
             '{"jsonrpc": "2.0", "id": 7, "method": 5}',
             '{"jsonrpc": "2.0", "id": 8, "method": "session/prompt", "params": {"prompt": 3}}',
             '{"jsonrpc": "2.0", "id": 9, "method": "no/such/method", "params": {}}',
             '{"jsonrpc": "2.0", "id": 10, "method": "initialize", "params": {"protocolVersion": 1}}']
    proc = subprocess.run([*interp_cmd(), "acp", "--model", "openai/fake-model"],
                          input="\n".join(lines) + "\n", capture_output=True, text=True,
                          env=interp_env["env"], cwd=interp_env["cwd"], timeout=HANG_GUARD)
    assert proc.returncode == 0, proc.stderr
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [a.get("id") for a in answers] == [None, None, None, None, 7, 8, 9, 10]
    codes = [a["error"]["code"] for a in answers[:7]]
    assert codes == [-32700, -32600, -32600, -32600, -32600, -32602, -32601]
    assert answers[0]["error"]["message"].startswith("line 1 is not JSON")
    assert "batches of messages are not supported" in answers[1]["error"]["message"]
    assert answers[7]["result"]["agentInfo"]["name"] == "interp"
    said = proc.stderr.splitlines()
    assert said[0].startswith("interp acp: serving the Agent Client Protocol")
    assert len([line for line in said if "refused a message" in line]) == 5
    assert "Traceback" not in proc.stderr


def test_an_overlong_line_is_dropped_as_it_comes_and_answered(interp_env):
    proc = subprocess.run([*interp_cmd(), "acp"],
                          input="x" * (70 * 1024 * 1024) + "\n" +
                          '{"jsonrpc": "2.0", "id": 1, "method": "initialize", '
                          '"params": {"protocolVersion": 1}}\n',
                          capture_output=True, text=True, env=interp_env["env"],
                          cwd=interp_env["cwd"], timeout=HANG_GUARD)
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert answers[0]["error"]["message"] == ("line 1 is longer than 67,108,864 bytes; it was "
                                              "dropped")
    assert answers[1]["id"] == 1 and "result" in answers[1]


def test_without_the_sdk_it_says_how_to_install_it(interp_env):
    proc = run_main(["acp"], interp_env, before="sys.modules['acp'] = None")
    assert proc.returncode == 2
    assert proc.stderr == NO_SDK + "\n"
    assert "pip install 'interp[acp]'" in NO_SDK


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["acp", "--help"], ["sessions"]])
def test_the_sdk_is_imported_only_to_serve(interp_env, args):
    proc = run_main(args, interp_env, after="print('imported' if {'acp', 'interp.acp', "
                                            "'interp.skills'} & set(sys.modules) else 'not')")
    assert proc.stdout.splitlines()[-1] == "not"


def test_a_bad_approval_table_stops_it_in_one_line(interp_env):
    write_config(interp_env, '[approval]\nallow = ["nosuchlanguage: x"]\n')
    proc = run_interp(["acp"], interp_env)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "unknown language 'nosuchlanguage'" in proc.stderr
