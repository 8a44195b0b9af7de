"""Rules for MCP tool calls: `mcp: SERVER.TOOL` entries match a call by its name (never its
arguments), deny beats ask beats allow as for code, `mcp` is a language whether or not
servers are configured, and "always allow" offers the tool itself."""

from __future__ import annotations

import pytest

from languages import default_registry

from interp.approval.policy import Policy, registry_resolver
from interp.approval.prefixes import prefix_rules
from interp.approval.rules import RuleSet, RulesError
from interp.mcpcall import CallError, McpCall, call_name, function_name, parse_call

pytestmark = pytest.mark.fast  # rules and text only

RESOLVE = registry_resolver(default_registry(plugins=False))
CALL = 'github.create_issue {\n  "title": "rm -rf everything"\n}'


def test_a_call_matches_by_its_name_and_deny_beats_ask_beats_allow():
    rules = RuleSet.from_config({"allow": ["mcp: github.*", "mcp: files.read_file"],
                                 "ask": ["mcp: github.create_*"],
                                 "deny": ["mcp: files.delete*"]}, RESOLVE)
    assert rules.evaluate("mcp", 'github.list_issues {"repo": "x"}').action == "allow"
    assert rules.evaluate("mcp", CALL).action == "ask"
    assert rules.evaluate("mcp", 'files.delete_file {"path": "a"}').action == "deny"
    assert rules.evaluate("mcp", "other.tool").action == "ask"  # no rule allows it
    assert rules.evaluate("mcp", CALL).command == "github.create_issue"


def test_arguments_never_match_a_rule():
    rules = RuleSet.from_config({"deny": ["mcp: *rm -rf*"]}, RESOLVE)
    assert rules.evaluate("mcp", CALL).action == "ask"


def test_the_whole_language_and_auto_mode():
    rules = RuleSet.from_config({"deny": ["mcp"]}, RESOLVE)
    assert rules.evaluate("mcp", CALL).action == "deny"
    auto = Policy.from_table({"mode": "auto"}, None, RESOLVE)
    assert auto.evaluate("MCP", CALL, auto=True).action == "allow"


def test_mcp_is_a_rules_language_even_without_servers():
    assert RESOLVE("mcp") == "mcp" and RESOLVE("MCP") == "mcp"
    with pytest.raises(RulesError, match="unknown language 'mcpp'"):
        RuleSet.from_config({"allow": ["mcpp: x.y"]}, RESOLVE)


def test_always_allow_offers_the_tool():
    assert [r.entry for r in prefix_rules("mcp", CALL, RESOLVE)] == ["mcp: github.create_issue"]
    assert [r.entry for r in prefix_rules("mcp", "we*rd.tool {}", RESOLVE)] == ["mcp"]


def test_the_call_text_round_trips():
    call = McpCall("github", "create_issue", {"title": "x", "labels": ["bug"]})
    assert parse_call(call.text()) == call and call_name(call.text()) == "github.create_issue"
    assert parse_call("files.list") == McpCall("files", "list", {})
    assert parse_call('  a.b.c  {"x": 1}\n') == McpCall("a", "b.c", {"x": 1})


@pytest.mark.parametrize("text, says", [
    ("", "SERVER.TOOL"), ("nodot {}", "SERVER.TOOL"), ("a.b {x}", "not valid JSON"),
    ("a.b [1]", "must be a JSON object"),
])
def test_what_is_not_a_call_says_why(text, says):
    with pytest.raises(CallError, match=says):
        parse_call(text)


def test_function_names_are_what_providers_take():
    assert function_name("github", "create_issue") == "mcp__github__create_issue"
    assert function_name("my-srv", "do.it now") == "mcp__my-srv__do_it_now"
    assert len(function_name("s", "t" * 100)) == 64
