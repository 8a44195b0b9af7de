"""The [[hooks.EVENT]] tables read into typed records: what each key takes, the matchers (a
language, an approval-rule entry, an MCP tool), and one line naming what is wrong."""

from __future__ import annotations

import pytest

from languages import default_registry

from interp.approval.policy import registry_resolver
from interp.hooks.config import DEFAULT_TIMEOUT, HooksError, parse_hooks

pytestmark = pytest.mark.fast  # parses tables only

RESOLVE = registry_resolver(default_registry(plugins=False))


def parse(table):
    return parse_hooks(table, RESOLVE, "config.toml")


def test_entries_by_event_in_order_with_their_time_bound():
    hooks = parse({"PreToolUse": [{"command": "a"}, {"command": "b", "timeout": 5}],
                   "Stop": [{"command": "c"}]})
    assert [(h.event, h.command, h.timeout) for h in hooks.hooks] == [
        ("PreToolUse", "a", DEFAULT_TIMEOUT), ("PreToolUse", "b", 5.0), ("Stop", "c", DEFAULT_TIMEOUT)]
    assert [h.command for h in hooks.at("PreToolUse")] == ["a", "b"]
    assert not parse(None) and not parse({})


def test_a_matcher_is_a_language_or_a_rule_entry_and_matches_as_the_rules_do():
    hooks = parse({"PreToolUse": [{"matcher": "bash", "command": "x"},
                                  {"matcher": "shell: git push *", "command": "y"},
                                  {"matcher": ["python", "mcp: github.*"], "command": "z"},
                                  {"matcher": "*", "command": "all"}]})
    sh, push, several, every = (h.matcher for h in hooks.hooks)
    assert sh.matches_block("shell", "ls", RESOLVE) and not sh.matches_block("python", "1", RESOLVE)
    assert push.matches_block("shell", "cd x && git push origin main", RESOLVE)
    assert not push.matches_block("shell", "git status", RESOLVE)
    assert several.matches_block("python", "print(1)", RESOLVE)
    assert several.matches_block("mcp", 'github.create_issue {"title": "x"}', RESOLVE)
    assert not several.matches_block("mcp", "files.read {}", RESOLVE)
    assert every.matches_block("javascript", "1", RESOLVE) and every.text == "*"


def test_a_shell_block_that_cannot_be_split_matches_a_pattern_of_its_language():
    """A guard runs rather than being skipped when interp cannot tell the commands apart."""
    push = parse({"PreToolUse": [{"matcher": "shell: git push *", "command": "y"}]}).hooks[0]
    assert push.matcher.matches_block("shell", "case $x in a) git push;; esac", RESOLVE)


def test_session_start_matches_its_source():
    hook = parse({"SessionStart": [{"matcher": ["startup", "resume"], "command": "x"}]}).hooks[0]
    assert hook.matcher.matches_source("resume") and not hook.matcher.matches_source("clear")


@pytest.mark.parametrize("table, says", [
    ({"UserPromptSubmit": [{"command": "x"}]}, "interp has no 'UserPromptSubmit' hooks"),
    ({"PreToolUse": [{"command": ""}]}, "command must be a non-empty string"),
    ({"PreToolUse": [{"command": "x", "timeout": 0}]}, "timeout must be a positive number"),
    ({"PreToolUse": [{"command": "x", "timeout": True}]}, "timeout must be a positive number"),
    ({"PreToolUse": [{"commnd": "x"}]}, "unknown key 'commnd'"),
    ({"PreToolUse": [{"hooks": [{"type": "command", "command": "x"}]}]},
     "write command = \"...\" in the entry itself"),
    ({"PreToolUse": [{"matcher": "cobol", "command": "x"}]}, "unknown language 'cobol'"),
    ({"PreToolUse": [{"matcher": 3, "command": "x"}]}, "matcher must be a string or a list"),
    ({"Stop": [{"matcher": "python", "command": "x"}]}, "Stop hooks take no matcher"),
    ({"SessionStart": [{"matcher": "compact", "command": "x"}]}, "not 'compact'"),
    ({"PreToolUse": "x"}, "expected a list of tables"),
    ("x", "must be a table"),
])
def test_what_is_wrong_is_one_line_naming_the_file_and_entry(table, says):
    with pytest.raises(HooksError) as caught:
        parse(table)
    message = str(caught.value)
    assert says in message and message.startswith("config.toml") and "\n" not in message
