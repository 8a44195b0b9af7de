"""The approval question put to MCP clients, what its answers mean, and the refusal (naming
the rule to add) when a client cannot ask; the terminal's rules decide first."""

from __future__ import annotations

import pytest

from languages import default_registry

from interp.approval.decision import ApprovalState, Proposal
from interp.approval.policy import Policy, PolicyApprover, registry_resolver
from interp.mcp.approval import ElicitingAsker, NoAnswer, Reply, decision, question, refusal

pytestmark = pytest.mark.fast
RESOLVE = registry_resolver(default_registry(plugins=False))


def policy(table: dict | None = None) -> Policy:
    return Policy.from_table(table or {}, None, RESOLVE)


def test_the_question_shows_the_code_and_offers_the_terminals_choices():
    asked = question(Proposal(3, "shell", "git status -s | head -3"), policy(), "claude-code 1.0")
    assert asked.message.startswith("claude-code 1.0 wants to run this shell block")
    assert "```shell\ngit status -s | head -3\n```" in asked.message
    options = asked.schema["properties"]["answer"]["oneOf"]
    assert [o["const"] for o in options] == ["run", "allow-1", "allow-2", "no"]
    assert "`shell: git status *` and `shell: head *`" in options[1]["title"]
    assert options[2]["title"] == "Run it, and allow all shell code for the rest of this session"
    assert asked.choices["allow-1"].allow == ("shell: git status *", "shell: head *")
    assert asked.schema["required"] == ["answer"]


def test_a_long_block_is_shortened_in_the_question():
    asked = question(Proposal(1, "python", "x = 1\n" * 2000), policy(), "c")
    assert "more characters)" in asked.message and len(asked.message) < 5000


@pytest.mark.parametrize("reply, runs, reason", [
    (Reply("accept", {"answer": "run"}), True, None),
    (Reply("accept", {"answer": "no", "reason": "not on main"}), False, "not on main"),
    (Reply("accept", {"answer": "no"}), False, None),
    (Reply("decline"), False, "The user declined it."),
    (Reply("cancel"), False, "The user dismissed the question without answering."),
    (Reply("accept", {"answer": "yes please"}), False, "The answer 'yes please' is not one of "
                                                       "the choices (run, allow-1, no); nothing ran."),
    (Reply("accept", None), False, "The form came back without an answer (the choices: run, "
                                   "allow-1, no); nothing ran."),
    (Reply("accept", {"answer": ["run"]}), False, "The answer is a list (['run']), not one of "
                                                  "the choices (run, allow-1, no); nothing ran."),
    (Reply("accept", {"answer": {"x": 1}}), False, "The answer is an object ({'x': 1}), not one "
                                                   "of the choices (run, allow-1, no); nothing ran."),
])
def test_what_an_answer_means(reply, runs, reason):
    got = decision(question(Proposal(1, "python", "1"), policy(), "c"), reply)
    assert got.run is runs and got.reason == reason


def test_a_client_that_cannot_ask_is_told_the_rule_that_would_let_the_block_run():
    got = refusal(Proposal(1, "shell", "ls -la && rm -f x"), policy())
    assert not got.run and got.policy
    assert got.reason.startswith("no rule allows `ls -la`, so the user must approve it, and "
                                 "this MCP client cannot ask the user")
    assert ("`interp rules add allow 'shell: ls *'` and `interp rules add allow 'shell: rm *'`"
            in got.reason)
    assert "interp mcp --auto-approve" in got.reason


def test_an_ask_rule_cannot_be_answered_by_a_new_allow_rule():
    got = refusal(Proposal(1, "shell", "git push"), policy({"ask": ["shell: git push*"]}))
    assert "the ask rule `shell: git push*` matched `git push`" in got.reason
    assert "Only a person can approve it" in got.reason
    assert "interp rules remove 'shell: git push*'" in got.reason


def test_rules_decide_before_anyone_is_asked_and_deny_wins_in_auto_mode():
    rules = policy({"allow": ["shell: ls *"], "deny": ["shell: rm *"]})
    asked: list = []

    def elicit(q):
        asked.append(q)
        return Reply("accept", {"answer": "run"})

    approver = PolicyApprover(rules, ElicitingAsker(rules, elicit, "c"),
                              ApprovalState(auto=True, policy=rules))
    assert approver(Proposal(1, "shell", "ls /tmp")).run
    denied = approver(Proposal(2, "shell", "rm -rf /tmp/x"))
    assert not denied.run and denied.policy and "deny rule `shell: rm *`" in denied.reason
    assert approver(Proposal(3, "python", "1")).run  # auto mode: nothing stops it
    assert asked == []


def test_an_always_answer_becomes_a_session_rule_of_this_client_only():
    rules, other = policy(), policy()
    approver = PolicyApprover(rules, ElicitingAsker(
        rules, lambda q: Reply("accept", {"answer": "allow-1"}), "c"),
        ApprovalState(auto=False, policy=rules))
    got = approver(Proposal(1, "shell", "git status"))
    assert got.run and "Allowed `shell: git status *` from now on (for this session)" in got.notice
    assert rules.evaluate("shell", "git status -s", auto=False).action == "allow"
    assert other.evaluate("shell", "git status -s", auto=False).action == "ask"


def test_no_answer_runs_nothing_and_says_why():
    def elicit(q):
        raise NoAnswer("the user did not answer within 600 s")

    got = ElicitingAsker(policy(), elicit, "c")(Proposal(1, "python", "1"))
    assert not got.run and not got.stop
    assert got.reason == "Not run: the user did not answer within 600 s."
