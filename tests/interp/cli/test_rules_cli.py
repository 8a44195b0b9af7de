"""Approval rules through the real `interp` executable: config.toml's [approval] table, one-shot
runs against the fake OpenAI server, and `interp rules`. Timeouts are hang guards only."""

from __future__ import annotations

import json
import tomllib

from helpers import model_args, run_interp
from helpers import config_file, write_config




def told(request: dict) -> str:
    return [m for m in request["messages"] if m["role"] in ("user", "tool")][-1]["content"]


def test_deny_rule_holds_under_auto_approve(fake_server, interp_env):
    write_config(interp_env, '[approval]\nallow = ["bash: ls *"]\ndeny = ["bash: touch *"]\n')
    fake_server.script(["```bash\nls && touch made.txt\n```", "The policy does not let me."])
    proc = run_interp(["-y", "-e", "make a file", *model_args(fake_server)], interp_env)
    assert proc.returncode == 4, proc.stderr
    assert not (interp_env["cwd"] / "made.txt").exists()
    assert proc.stdout.strip() == "The policy does not let me."
    message = told(fake_server.requests[1])
    assert "denied by policy" in message
    assert "bash: touch *" in message and "touch made.txt" in message
    assert "Traceback" not in proc.stderr


def test_json_events_and_ask_rule_without_a_terminal(fake_server, interp_env):
    write_config(interp_env, '[approval]\nmode = "auto"\nask = ["python"]\n')
    fake_server.script(["```python\nopen('made.txt', 'w').write('x')\n```",
                        "```bash\necho shell ran\n```", "Done."])
    # mode = "auto" in config.toml stands in for -y; the ask rule still needs a person
    proc = run_interp(["--json", "-e", "make a file", *model_args(fake_server)], interp_env)
    assert proc.returncode == 0, proc.stderr  # a block ran after the refusal: the task went on
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    declined = [e for e in events if e["type"] == "block.declined"]
    assert len(declined) == 1 and declined[0]["policy"] is True
    assert "the ask rule `python`" in declined[0]["reason"]
    assert not (interp_env["cwd"] / "made.txt").exists()
    assert "needs the user's approval" in told(fake_server.requests[1])
    assert [e["status"] for e in events if e["type"] == "block.finished"] == ["ok"]


def test_malformed_approval_table_is_one_line_exit_2(fake_server, interp_env):
    path = write_config(interp_env, 'model = "m"\n[approval]\nmode = "strict"\ndeny = "rm"\n')
    proc = run_interp(["-y", "-e", "hello", *model_args(fake_server)], interp_env)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0]
    assert "mode" in lines[0] and "deny must be a list" in lines[0]
    assert "Traceback" not in proc.stderr and fake_server.requests == []


def test_interp_rules_list_add_remove_keeps_other_content(interp_env):
    original = ('# my settings\nmodel = "gpt-4o"   # the usual\n\n[approval]\nmode = "ask"\n'
                'allow = ["bash: git status"]  # trailing comment\n\n[other]\nkey = 1\n')
    path = write_config(interp_env, original)
    listing = run_interp(["rules"], interp_env)
    assert listing.returncode == 0, listing.stderr
    assert "1  allow  bash: git status" in listing.stdout and "mode: ask" in listing.stdout

    added = run_interp(["rules", "add", "deny", "bash: rm *"], interp_env)
    assert added.returncode == 0, added.stderr
    assert "Added deny rule `bash: rm *`" in added.stdout
    data = tomllib.loads(path.read_text())
    assert data["approval"]["deny"] == ["bash: rm *"]
    assert data["approval"]["allow"] == ["bash: git status"]
    assert data["model"] == "gpt-4o" and data["other"] == {"key": 1}
    text = path.read_text()
    assert text.startswith('# my settings\nmodel = "gpt-4o"   # the usual\n')
    assert text.endswith("[other]\nkey = 1\n")

    listing = run_interp(["rules", "list"], interp_env)
    assert listing.stdout.index("deny   bash: rm *") < listing.stdout.index("allow  bash: git")

    removed = run_interp(["rules", "remove", "bash: git status"], interp_env)
    assert removed.returncode == 0 and "Removed allow rule" in removed.stdout
    removed = run_interp(["rules", "remove", "1"], interp_env)
    assert removed.returncode == 0 and "bash: rm *" in removed.stdout
    data = tomllib.loads(path.read_text())
    assert data["approval"]["allow"] == [] and data["approval"]["deny"] == []
    assert path.read_text().startswith('# my settings\nmodel = "gpt-4o"   # the usual\n')

    for args, needle in ((["rules", "remove", "nope"], "no rule 'nope'"),
                         (["rules", "add", "deny", "ruby: gem *"], "unknown language 'ruby'"),
                         (["rules", "add", "maybe", "bash"], "unknown rule kind")):
        proc = run_interp(args, interp_env)
        assert proc.returncode == 2 and needle in proc.stderr, (args, proc.stderr)
        assert "Traceback" not in proc.stderr


def test_interp_rules_creates_the_config(interp_env):
    proc = run_interp(["rules"], interp_env)
    assert proc.returncode == 0 and "No approval rules" in proc.stdout
    proc = run_interp(["rules", "add", "allow", "py"], interp_env)
    assert proc.returncode == 0, proc.stderr
    assert tomllib.loads(config_file(interp_env).read_text())["approval"]["allow"] == ["py"]
