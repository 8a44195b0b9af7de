"""What the question learns from the rules: why it asks, a prefix rule per command, and
session rules that /reset clears."""

from __future__ import annotations

import pytest

from interp.approval.decision import RUN, ApprovalState, Decision, Proposal
from interp.approval.policy import Policy, PolicyApprover, registry_resolver
from interp.approval.prefixes import prefix_rules
from interp.approval.rules import RuleSet
from languages import default_registry

pytestmark = pytest.mark.fast  # pure units: no process, pty or server (see conftest.py)


RESOLVE = registry_resolver(default_registry(plugins=False))


def policy(**table) -> Policy:
    return Policy(RuleSet.from_config(table, RESOLVE), None, RESOLVE)


class Person:
    def __init__(self, answer: Decision = RUN) -> None:
        self.answer, self.asked = answer, []

    def __call__(self, proposal: Proposal) -> Decision:
        self.asked.append(proposal)
        return self.answer


def test_the_question_says_which_command_no_rule_covers():
    person = Person()
    PolicyApprover(policy(allow=["bash: ls *"]), person)(Proposal(1, "shell", "ls -la | head -3"))
    assert person.asked[0].why == "no rule allows `head -3`"


def test_an_ask_rule_is_named():
    person = Person()
    approver = PolicyApprover(policy(ask=["bash: git push *"]), person,
                              ApprovalState(auto=True))
    approver(Proposal(1, "shell", "git push origin"))
    assert person.asked[0].why == "the ask rule `bash: git push *` matched `git push origin`"


def test_without_rules_the_question_gives_no_reason():
    person = Person()
    PolicyApprover(policy(), person)(Proposal(1, "shell", "ls"))
    assert person.asked[0].why is None


def test_prefix_rules_one_per_command():
    entries = [r.entry for r in prefix_rules("bash", "ls -la | head -3", RESOLVE)]
    assert entries == ["bash: ls *", "bash: head *"]
    entries = [r.entry for r in prefix_rules("shell", "git status -s || echo x", RESOLVE)]
    assert entries == ["shell: git status *", "shell: echo x *"]
    assert [r.entry for r in prefix_rules("py", "print(1)", RESOLVE)] == ["py"]
    assert [r.entry for r in prefix_rules("bash", "echo 'oops", RESOLVE)] == ["bash"]


def test_allowing_several_prefixes_then_reset_clears_them():
    rules = policy()
    person = Person(Decision(run=True, allow=("shell: ls *", "shell: head *")))
    approver = PolicyApprover(rules, person)
    decision = approver(Proposal(1, "shell", "ls -la | head -3"))
    assert decision.run and decision.notice == (
        "Allowed `shell: ls *` and `shell: head *` from now on (for this session).")
    assert approver(Proposal(2, "shell", "ls | head -1")).run
    assert len(person.asked) == 1  # the second block ran without asking
    assert rules.clear_session() == 2
    approver(Proposal(3, "shell", "ls | head -1"))
    assert len(person.asked) == 2  # asked again
