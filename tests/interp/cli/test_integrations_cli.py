"""The real `interp` with what config.toml plugs in and what a script asks of its answer:
MCP servers (a real one written with the SDK), hooks (one-shot, --json, the terminal),
--output-schema and --output-file. Against the fake OpenAI server; timeouts are hang guards."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from helpers import model_args, run_interp, write_config
from pty_terminal import fenced

SERVER = str(Path(__file__).resolve().parents[2] / "mcp_tool_server.py")
SCHEMA = {"type": "object", "properties": {"total": {"type": "integer"}},
          "required": ["total"], "additionalProperties": False}
DEMO = f"""
[mcp_servers.demo]
command = "{sys.executable}"
args = ["{SERVER}"]
startup_timeout_sec = 60

[mcp_servers.broken]
command = "/no/such/server"
"""


def events_of(proc) -> list[dict]:
    return [json.loads(line) for line in proc.stdout.splitlines()]


# -- MCP servers -------------------------------------------------------------------------------

def test_a_tool_of_a_configured_server_runs_and_a_broken_one_is_a_line(fake_server, interp_env):
    write_config(interp_env, DEMO)
    fake_server.script([{"tool_calls": [{"name": "mcp__demo__add", "arguments": {"a": 2, "b": 40}}]},
                        "The sum is 42."])
    proc = run_interp(model_args(fake_server) + ["-y", "--tools", "on", "--json", "-e",
                                                 "add 2 and 40"], interp_env)
    assert proc.returncode == 0, proc.stderr
    events = events_of(proc)
    notices = [e["text"] for e in events if e["type"] == "notice"]
    assert any(t.startswith("MCP server demo: 9 tools (add, echo,") for t in notices)
    broken = [line for line in proc.stderr.splitlines() if "MCP server broken" in line]
    assert len(broken) == 1 and "going on without it" in broken[0]
    finished = [e for e in events if e["type"] == "block.finished"]
    assert [(e["status"]) for e in finished] == ["ok"]
    assert "42" in fake_server.requests[1]["messages"][-1]["content"]
    assert events[-2]["answer"] == "The sum is 42."


def test_a_server_slow_to_start_is_said_while_it_is_waited_for(fake_server, interp_env):
    write_config(interp_env, f"""
[mcp_servers.slow]
command = "{sys.executable}"
args = ["{SERVER}", "--silent-start", "3"]
startup_timeout_sec = 60
""")
    fake_server.script(["Hello."])
    proc = run_interp(model_args(fake_server) + ["-y", "-e", "hi"], interp_env)
    assert proc.returncode == 0, proc.stderr
    assert "interp: starting MCP servers slow (at most 60 s)…" in proc.stderr
    assert "MCP server slow: 9 tools" in proc.stderr


def test_a_bad_mcp_servers_table_is_one_line_and_exit_status_2(fake_server, interp_env):
    write_config(interp_env, '[mcp_servers.x]\ncommand = "a"\nurl = "http://h"\n')
    proc = run_interp(model_args(fake_server) + ["-y", "-e", "hi"], interp_env)
    assert proc.returncode == 2 and proc.stderr.strip().endswith(
        "give either command (a stdio server) or url (Streamable HTTP)")
    assert fake_server.requests == []


def test_slash_mcp_lists_the_servers_their_state_and_tools(spawn, interp_env):
    write_config(interp_env, DEMO)
    term = spawn()
    term.task("/mcp")
    term.expect(r"demo \(stdio: .*\): ready")
    term.expect(r"demo\.add: Add two whole numbers\.")
    term.expect(r"broken \(stdio: /no/such/server\): failed: could not start")
    assert term.exit_status() == 0


def test_in_the_terminal_a_call_asks_with_one_key_and_a_can_allow_the_tool(spawn, interp_env,
                                                                          fake_server):
    write_config(interp_env, DEMO + '[approval]\nallow = ["mcp: demo.echo"]\n')
    add = {"tool_calls": [{"name": "mcp__demo__add", "arguments": {"a": 2, "b": 40}}]}
    fake_server.script([add, add, "The sum is 42."])
    term = spawn("--tools", "on")
    term.task("add 2 and 40")
    term.expect(r'demo\.add \{')
    term.expect("Asking because no rule allows `demo.add`.")
    term.expect("Run this mcp block")
    term.send("a")
    term.expect(r"1\) `mcp: demo\.add` for this session")
    term.expect("every MCP tool for this session")
    term.send("1")
    term.expect("Allowed `mcp: demo.add`")
    term.expect("42")
    term.expect("Allowed by policy: rule `mcp: demo.add`")  # the second call asks no more
    term.expect("The sum is 42.")
    assert term.exit_status() == 0


# -- hooks ---------------------------------------------------------------------------------------

HOOKS = """
[[hooks.PreToolUse]]
matcher = "shell: rm *"
command = "echo 'nothing is deleted here' >&2; exit 2"

[[hooks.SessionStart]]
command = "echo 'Answer in one sentence.'"

[[hooks.PostToolUse]]
matcher = "python"
command = "echo 'Note: the linter found nothing.'"
"""


def test_hooks_in_a_one_shot_run_and_with_json(fake_server, interp_env):
    write_config(interp_env, HOOKS)
    (interp_env["cwd"] / "keep.txt").write_text("keep")
    for flags in ([], ["--json"]):
        fake_server.script([fenced("shell", "rm keep.txt"), "I may not delete it."])
        before = len(fake_server.requests)
        proc = run_interp(model_args(fake_server) + ["-y", "--checks", "off", *flags, "-e",
                                                     "delete keep.txt"], interp_env)
        assert proc.returncode == 4, proc.stderr  # denied, nothing ran after
        assert (interp_env["cwd"] / "keep.txt").exists()
        first, second = fake_server.requests[before:]
        assert "Answer in one sentence." in first["messages"][-1]["content"]
        assert "nothing is deleted here" in second["messages"][-1]["content"]


def test_what_post_tool_use_hooks_say_goes_to_the_model(fake_server, interp_env):
    write_config(interp_env, HOOKS)
    fake_server.script([fenced("python", "print(6 * 7)"), "It is 42."])
    proc = run_interp(model_args(fake_server) + ["-y", "--checks", "off", "-e", "multiply"],
                      interp_env)
    assert proc.returncode == 0, proc.stderr
    told = fake_server.requests[1]["messages"][-1]["content"]
    assert "42" in told and "Note: the linter found nothing." in told


def test_hooks_in_the_terminal_and_after_reset(spawn, interp_env, fake_server):
    write_config(interp_env, HOOKS)
    fake_server.script([fenced("shell", "rm -rf build"), "Understood.", "Hi."])
    term = spawn()
    term.task("clean up")
    term.expect("denied by policy: the PreToolUse hook")
    term.expect("nothing is deleted here")
    term.prompt()
    term.line("/reset")
    term.expect("New conversation")
    term.task("hello")
    term.expect("Hi.")
    assert "Answer in one sentence." in fake_server.requests[-1]["messages"][-1]["content"]
    assert term.exit_status() == 0


def test_a_bad_hooks_table_is_one_line_and_exit_status_2(fake_server, interp_env):
    write_config(interp_env, '[[hooks.BeforeEverything]]\ncommand = "x"\n')
    proc = run_interp(model_args(fake_server) + ["-y", "-e", "hi"], interp_env)
    assert proc.returncode == 2 and "interp has no 'BeforeEverything' hooks" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


# -- --output-schema and --output-file -----------------------------------------------------------

def schema_file(interp_env) -> str:
    path = interp_env["cwd"].parent / "schema.json"
    path.write_text(json.dumps(SCHEMA))
    return str(path)


def test_the_answer_is_json_valid_against_the_schema_alone_on_stdout(fake_server, interp_env):
    out = interp_env["cwd"].parent / "answer.json"
    fake_server.script(["The total is 42.", '```json\n{"total": 42}\n```'])
    proc = run_interp(model_args(fake_server) + ["-y", "--output-schema", schema_file(interp_env),
                                                 "--output-file", str(out), "-e", "count"],
                      interp_env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == '{"total": 42}\n'
    assert out.read_text() == '{"total": 42}\n'
    assert "not valid against the output schema" in proc.stderr


def test_an_answer_never_valid_is_exit_status_7_and_nothing_on_stdout(fake_server, interp_env):
    fake_server.script(['{"total": "many"}', '{"total": "lots"}'])
    proc = run_interp(model_args(fake_server) + ["-y", "--json", "--output-schema",
                                                 schema_file(interp_env), "-e", "count"],
                      interp_env)
    assert proc.returncode == 7, proc.stderr
    finished = events_of(proc)[-2]
    assert finished["type"] == "task.finished" and finished["exit_code"] == 7
    assert finished["answer"] == '{"total": "lots"}' and "structured_output" not in finished


def test_json_events_carry_the_structured_output(fake_server, interp_env):
    fake_server.script(['{"total": 3}'])
    proc = run_interp(model_args(fake_server) + ["-y", "--json", "--output-schema",
                                                 schema_file(interp_env), "-e", "count"],
                      interp_env)
    assert proc.returncode == 0, proc.stderr
    assert events_of(proc)[-2]["structured_output"] == {"total": 3}


def test_output_file_without_a_schema_holds_the_answer(fake_server, interp_env):
    out = interp_env["cwd"].parent / "answer.md"
    fake_server.script(["Hello there."])
    proc = run_interp(model_args(fake_server) + ["-y", "--output-file", str(out), "-e", "greet"],
                      interp_env)
    assert proc.returncode == 0 and out.read_text() == "Hello there.\n"


def test_a_schema_or_output_file_that_cannot_be_used_is_exit_status_2(fake_server, interp_env):
    bad = interp_env["cwd"].parent / "bad.json"
    bad.write_text('{"type": "nonsense"}')
    for flags, says in ((["--output-schema", str(bad)], "not a valid JSON Schema"),
                        (["--output-schema", str(bad) + ".missing"], "No such file"),
                        (["--output-file", "/no/such/folder/a.txt"], "does not exist")):
        proc = run_interp(model_args(fake_server) + ["-y", *flags, "-e", "count"], interp_env)
        assert proc.returncode == 2 and says in proc.stderr, proc.stderr
    assert fake_server.requests == []
