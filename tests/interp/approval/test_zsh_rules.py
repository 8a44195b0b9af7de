"""zsh blocks have a runner of their own (languages/zsh.py) but are judged by the shell's rules."""

from __future__ import annotations

import pytest

from interp.approval.policy import registry_resolver
from interp.approval.rules import RuleSet
from languages import default_registry

pytestmark = pytest.mark.fast  # pure units: no process, pty or server (see conftest.py)


def test_shell_rules_judge_zsh_blocks_command_by_command():
    resolve = registry_resolver(default_registry(plugins=False))
    rules = RuleSet.from_config({"mode": "auto", "allow": ["bash: ls *"], "deny": ["sh: rm *"]}, resolve)
    assert rules.evaluate("zsh", "ls -l").action == "allow"
    denied = rules.evaluate("zsh", "cd build && rm -rf ./*")
    assert denied.action == "deny" and denied.command == "rm -rf ./*"
    zsh_rule = RuleSet.from_config({"deny": ["zsh: curl *"]}, resolve)
    assert zsh_rule.evaluate("bash", "curl example.org").action == "deny"
