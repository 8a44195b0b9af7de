"""`interp mcp` with what the terminal has: checkpoints before each block (so `interp rewind`
undoes what an MCP client's code did to the folder) and the hooks of config.toml (a
PreToolUse hook denies, PostToolUse and SessionStart output goes back to the client's
model). The real `interp mcp` over stdio, driven by the SDK's own client; timeouts are hang
guards."""

from __future__ import annotations

import json


from helpers import run_interp, write_config
from mcp_kit import converse, stdio_client, text



def run_code(client, language: str, code: str):
    return client.call_tool("run_code", {"language": language, "code": code})


def test_interp_rewind_undoes_what_an_mcp_clients_code_did(interp_env):
    work = interp_env["cwd"]
    (work / "data.txt").write_text("original\n")
    (work / "old.txt").write_text("old\n")

    async def body():
        async with stdio_client(interp_env, "-y") as client:
            first = await run_code(client, "python", "open('data.txt', 'w').write('changed\\n')")
            second = await run_code(client, "shell", "rm old.txt && echo made > new.txt")
            return text(first), text(second)

    first, second = converse(body)
    assert "Checkpoint" not in first + second  # taken without a word
    assert (work / "data.txt").read_text() == "changed\n" and not (work / "old.txt").exists()
    listed = run_interp(["rewind"], interp_env)
    assert listed.returncode == 0, listed.stderr
    assert "data.txt" in listed.stdout and "new.txt" in listed.stdout
    back = run_interp(["rewind", "--to", "1"], interp_env)
    assert back.returncode == 0, back.stderr
    assert (work / "data.txt").read_text() == "original\n"
    assert (work / "old.txt").read_text() == "old\n" and not (work / "new.txt").exists()


def test_no_checkpoints_turns_them_off(interp_env):
    async def body():
        async with stdio_client(interp_env, "-y", "--no-checkpoints") as client:
            await run_code(client, "python", "open('x.txt', 'w').write('x')")

    converse(body)
    sessions = interp_env["data"] / "interp" / "sessions"
    lines = [json.loads(line) for f in sessions.glob("*.jsonl") for line in f.read_text().splitlines()]
    assert lines and not any(line.get("event") == "checkpoint" for line in lines)
    assert not (interp_env["data"] / "interp" / "checkpoints").exists()


def test_hooks_apply_to_an_mcp_clients_blocks(interp_env):
    seen = interp_env["cwd"].parent / "pre.json"
    write_config(interp_env, f"""
[[hooks.SessionStart]]
command = "echo 'Blocks here must not use the network.'"

[[hooks.PreToolUse]]
matcher = "shell: curl *"
command = "cat > {seen}; echo 'no network from blocks' >&2; exit 2"

[[hooks.PostToolUse]]
matcher = "python"
command = "echo '{{\\"hookSpecificOutput\\": {{\\"additionalContext\\": \\"checked by lint\\"}}}}'"
""")

    async def body():
        async with stdio_client(interp_env, "-y") as client:
            ran = await run_code(client, "python", "print(6 * 7)")
            denied = await run_code(client, "shell", "curl https://example.com")
            return ran, denied

    ran, denied = converse(body)
    said = text(ran)
    assert "42" in said and "checked by lint" in said
    assert "Blocks here must not use the network." in said  # the first call's result
    assert denied.is_error and "no network from blocks" in text(denied)
    event = json.loads(seen.read_text())
    assert event["hook_event_name"] == "PreToolUse" and event["tool_input"]["code"] == \
        "curl https://example.com"
    assert event["permission_mode"] == "auto" and event["session_id"]


def test_a_bad_hooks_table_stops_interp_mcp_with_one_line(interp_env):
    write_config(interp_env, '[[hooks.PreToolUse]]\ncommand = ""\n')
    proc = run_interp(["mcp"], interp_env)
    assert proc.returncode == 2
    assert "command must be a non-empty string" in proc.stderr
    assert "Traceback" not in proc.stderr
