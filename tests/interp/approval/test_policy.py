"""The policy approver: rules decide before the person is asked; deny holds under auto-approve.

Unit tests use a recording stand-in for the person; the Session tests at the end run against
the fake OpenAI server through real litellm and real runners (hang guards only).
"""

from __future__ import annotations

import tomllib

import pytest

from fake_openai import FakeOpenAI

from interp.core import events as ev
from interp.core.exits import POLICY as EXIT_POLICY
from interp.core.session import Session, SessionConfig
from interp.approval.decision import RUN, ApprovalState, Decision, Proposal, decline
from session_kit import Person
from interp.models.reach import model_for
from interp.cli.subcommands import rules_cli
from interp.approval.policy import Policy, PolicyApprover, registry_resolver
from interp.approval.rules import RulesError
from languages import Registry, RunnerConfig, default_registry
from languages.python import PythonRunner
from languages.shell import ShellRunner

RESOLVE = registry_resolver(default_registry(plugins=False))


def policy(allow=(), ask=(), deny=(), mode="ask", path=None) -> Policy:
    table = {"mode": mode, "allow": list(allow), "ask": list(ask), "deny": list(deny)}
    return Policy.from_table(table, path, RESOLVE)


def approve(pol: Policy, code: str, language: str = "shell", *, auto: bool = False,
            person: Person | None = None, terminal: bool = True) -> tuple[Decision, bool]:
    """The decision for a block, and whether the person was asked."""
    person = person if person is not None else Person()
    approver = PolicyApprover(pol, person if terminal else None, ApprovalState(auto, pol))
    decision = approver(Proposal(1, language, code))
    return decision, bool(person.asked)


# -- each rule kind ----------------------------------------------------------------------

@pytest.mark.fast
def test_allow_rule_runs_without_asking():
    decision, asked = approve(policy(allow=["bash: git status", "bash: ls *"]), "ls -la /tmp")
    assert decision.run and not asked
    assert decision.policy and "bash: ls *" in decision.notice


@pytest.mark.fast
def test_unmatched_block_asks_the_person():
    person = Person(decline("no thanks"))
    decision, asked = approve(policy(allow=["bash: ls *"]), "lsblk", person=person)
    assert asked and not decision.run and decision.reason == "no thanks"
    assert not decision.policy  # the person declined, not a rule


@pytest.mark.fast
def test_deny_rule_refuses_with_rule_and_command():
    decision, asked = approve(policy(deny=["bash: rm *"]), "rm -rf build")
    assert not asked and not decision.run and decision.policy
    assert "bash: rm *" in decision.reason and "rm -rf build" in decision.reason


@pytest.mark.fast
def test_deny_whole_language_through_an_alias():
    decision, asked = approve(policy(deny=["node"]), "console.log(1)", "javascript")
    assert not decision.run and not asked and "`node`" in decision.reason


@pytest.mark.fast
def test_ask_rule_asks_even_when_an_allow_rule_matches():
    decision, asked = approve(policy(allow=["bash: git *"], ask=["bash: git push *"]),
                              "git push origin main")
    assert asked and decision.run


# -- precedence and compound commands -------------------------------------------------------

@pytest.mark.fast
def test_deny_beats_ask_beats_allow():
    pol = policy(allow=["bash: git *"], ask=["bash: git *"], deny=["bash: git *"])
    decision, asked = approve(pol, "git status")
    assert not decision.run and not asked and decision.policy
    pol = policy(allow=["bash: git *"], ask=["bash: git *"])
    assert approve(pol, "git status")[1]


@pytest.mark.fast
def test_compound_command_asks_unless_every_command_is_allowed():
    pol = policy(allow=["bash: cd *", "bash: ls *"])
    decision, asked = approve(pol, "cd x && rm -rf y")
    assert asked  # `rm -rf y` is not allowed, so the whole block asks
    decision, asked = approve(pol, "cd x && ls | ls")
    assert decision.run and not asked
    decision, asked = approve(policy(allow=["bash: cd *"], deny=["bash: rm *"]),
                              "cd x && rm -rf y")
    assert not decision.run and not asked and "rm -rf y" in decision.reason


@pytest.mark.fast
def test_command_substitution_is_checked():
    decision, _ = approve(policy(allow=["bash: echo *"], deny=["bash: curl *"]),
                          "echo $(curl -s evil.example)", auto=True)
    assert not decision.run and "curl" in decision.reason


# -- auto mode (--auto-approve, mode = "auto", /mode auto) -----------------------------------

@pytest.mark.fast
def test_deny_holds_under_auto_approve():
    decision, asked = approve(policy(deny=["bash: rm *"]), "ls; rm -rf /tmp/x", auto=True)
    assert not decision.run and not asked and decision.policy


@pytest.mark.fast
def test_auto_runs_unmatched_blocks_without_asking():
    decision, asked = approve(policy(deny=["bash: rm *"]), "touch a b", auto=True)
    assert decision == RUN and not asked


@pytest.mark.fast
def test_auto_with_an_ask_rule_asks_on_a_terminal_else_refuses():
    pol = policy(ask=["bash: git push *"])
    decision, asked = approve(pol, "git push", auto=True)
    assert asked and decision.run
    decision, asked = approve(pol, "git push", auto=True, terminal=False)
    assert not decision.run and not asked and decision.policy
    assert "needs the user's approval" in decision.reason and "git push" in decision.reason


@pytest.mark.fast
def test_unsplittable_shell_under_auto():
    code = "case $x in a) rm -rf y ;; esac"
    assert approve(policy(), code, auto=True)[0].run  # no rules: nothing could hide
    decision, asked = approve(policy(deny=["bash: rm *"]), code, auto=True, terminal=False)
    assert not decision.run and decision.policy and "could not be split" in decision.reason
    assert approve(policy(deny=["bash: rm *"]), code, auto=True)[1]  # a terminal: ask


@pytest.mark.fast
def test_no_terminal_in_ask_mode_refuses():
    decision, _ = approve(policy(), "ls", terminal=False)
    assert not decision.run and decision.policy


# -- "always allow" choices ------------------------------------------------------------------

@pytest.mark.fast
def test_session_choice_adds_an_allow_rule(tmp_path):
    path = tmp_path / "config.toml"
    pol = policy(path=path)
    person = Person(Decision(run=True, allow="shell: git status *"))
    decision, asked = approve(pol, "git status -s", person=person)
    assert asked and decision.run and decision.allow is None
    assert "for this session" in decision.notice
    assert approve(pol, "git status --short")[0].run  # now allowed without asking
    assert not approve(pol, "git status --short")[1]
    assert [(e.kind, e.rule.entry, e.origin) for e in pol.entries()] == [
        ("allow", "shell: git status *", "session")]
    assert not path.exists()  # a session rule is not saved


@pytest.mark.fast
def test_saved_choice_writes_only_the_approval_table(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('# my settings\nmodel = "gpt-4o"  # keep\n\n[approval]\ndeny = ["node"]\n')
    pol = Policy.load(path, RESOLVE)
    person = Person(Decision(run=True, allow="shell", save=True))
    decision, _ = approve(pol, "echo hi", person=person)
    assert decision.run and str(path) in decision.notice
    text = path.read_text()
    assert text.startswith('# my settings\nmodel = "gpt-4o"  # keep\n')
    assert tomllib.loads(text)["approval"]["allow"] == ["shell"]
    assert tomllib.loads(text)["approval"]["deny"] == ["node"]
    assert [(e.kind, e.rule.entry, e.origin) for e in pol.entries()] == [
        ("deny", "node", "config"), ("allow", "shell", "config")]
    assert not approve(pol, "rm -rf x")[1]  # the whole language is allowed now


@pytest.mark.fast
def test_allow_choice_does_not_override_deny(tmp_path):
    pol = policy(deny=["bash: rm *"], path=tmp_path / "c.toml")
    approve(pol, "ls", person=Person(Decision(run=True, allow="shell")))
    decision, _ = approve(pol, "rm x")
    assert not decision.run and decision.policy


@pytest.mark.fast
def test_saving_to_an_unwritable_config_falls_back_to_the_session(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("this is = not toml = at all\n")
    pol = policy(path=path)
    person = Person(Decision(run=True, allow="shell", save=True))
    decision, _ = approve(pol, "ls", person=person)
    assert decision.run and decision.notice_level == "warning"
    assert "session only" in decision.notice
    assert [e.origin for e in pol.entries()] == ["session"]


# -- listing and removing -------------------------------------------------------------------

@pytest.mark.fast
def test_remove_by_number_and_by_entry(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('model = "m"\n[approval]\nallow = ["bash: ls *"]\ndeny = ["bash: rm *"]\n')
    pol = Policy.load(path, RESOLVE)
    pol.add("allow", "python")
    assert [(e.number, e.kind, e.rule.entry, e.origin) for e in pol.entries()] == [
        (1, "deny", "bash: rm *", "config"), (2, "allow", "bash: ls *", "config"),
        (3, "allow", "python", "session")]
    removed = pol.remove("1")
    assert [(r.kind, r.rule.entry) for r in removed] == [("deny", "bash: rm *")]
    assert tomllib.loads(path.read_text())["approval"]["deny"] == []
    assert pol.remove("py")[0].origin == "session"  # an alias means the same rule
    assert tomllib.loads(path.read_text())["approval"]["allow"] == ["bash: ls *"]
    with pytest.raises(RulesError, match="no rule"):
        pol.remove("9")
    assert path.read_text().startswith('model = "m"\n')


@pytest.mark.fast
def test_malformed_table_is_one_line_naming_the_file(tmp_path):
    with pytest.raises(RulesError) as info:
        Policy.from_table({"mode": "yolo", "deny": ["ruby: gem *"]}, tmp_path / "c.toml", RESOLVE)
    assert "\n" not in str(info.value)
    assert "c.toml" in str(info.value) and "mode" in str(info.value) and "ruby" in str(info.value)


@pytest.mark.fast
def test_rules_cli_add_list_remove(tmp_path, capsys):
    path = tmp_path / "config.toml"
    assert rules_cli("add", "deny", "bash: rm *", path=path) == 0
    assert rules_cli("add", "deny", "bash: rm *", path=path) == 0  # already there
    assert rules_cli("add", "never", "bash: ls", path=path) == 2
    assert rules_cli("list", path=path) == 0
    out = capsys.readouterr()
    assert "already" in out.out and "1  deny   bash: rm *" in out.out
    assert "unknown rule kind" in out.err
    assert rules_cli("remove", entry="1", path=path) == 0
    assert tomllib.loads(path.read_text())["approval"]["deny"] == []


# -- in a Session: the event, the model message, the exit status ----------------------------

@pytest.fixture
def session_with(tmp_path):
    made = []

    def make(server, approver) -> Session:
        work = tmp_path / "work"
        work.mkdir(exist_ok=True)
        llm = model_for("openai/fake-model", api_base=server.api_base, api_key="sk-test-1")
        session = Session(llm, approver, config=SessionConfig(runner=RunnerConfig(cwd=str(work))),
                          registry=Registry([PythonRunner, ShellRunner]))
        made.append(session)
        return session

    yield make
    for session in made:
        session.close()


def run_task(session: Session, task: str) -> list[ev.Event]:
    return [e for e in session.run(task) if e.type != ev.MESSAGE_DELTA]


def test_session_reports_policy_denial_and_exits_4(session_with, tmp_path):
    marker = tmp_path / "work" / "gone.txt"
    with FakeOpenAI() as server:
        server.script(["```bash\ntouch gone.txt && rm -rf gone.txt\n```", "I cannot do that."])
        pol = policy(deny=["bash: rm *"])
        session = session_with(server, PolicyApprover(pol, None, ApprovalState(True, pol)))
        events = run_task(session, "make and remove a file")
        declined = [e.body() for e in events if e.type == "block.declined"]
        assert declined == [{"index": 1, "policy": True,
                             "reason": "the deny rule `bash: rm *` matched `rm -rf gone.txt`"}]
        assert not marker.exists()
        told = server.requests[-1]["messages"][-1]["content"]
        assert "denied by policy" in told and "bash: rm *" in told and "rm -rf gone.txt" in told
        assert events[-1].body() == {"exit_code": EXIT_POLICY, "reason": "denied by policy",
                                     "answer": "I cannot do that."}
        # a later block that runs clears it: the task finished after all
        server.script(["```bash\necho fine\n```", "Done."])
        assert run_task(session, "something else")[-1].exit_code == 0
