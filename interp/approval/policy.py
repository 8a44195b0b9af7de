"""Approval rules in force: the config's `[approval]` rules plus session rules, and the
approver that applies them before (or instead of) asking the person.

`PolicyApprover` wraps a human approver (or none, when there is no terminal):

* a block a deny rule matches is not run; the decision carries ``policy=True`` and the rule
  and command, so the model is told it was denied by policy. Deny rules hold in ``auto`` mode
  (``--auto-approve``, ``mode = "auto"``, ``/mode auto``) too;
* a block every command of which an allow rule matches runs without asking;
* anything else asks the person, except in ``auto`` mode, where it runs, unless an explicit
  ask rule matched (or a shell block could not be split while deny or ask rules exist for
  shell): then the person is still asked if there is a terminal, and without one the block is
  not run and the model is told it needs the user's approval.

When the person answers the question with an "always allow" choice (``Decision.allow``), the
rule is added for the session or saved to config.toml (only its ``[approval]`` table changes).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from interp.approval.decision import RUN, ApprovalState, Approver, Decision, Proposal
from interp.approval.rules import (
    KINDS,
    MCP,
    SHELL,
    TABLE,
    Resolve,
    Rule,
    RulesError,
    RuleSet,
    Verdict,
    explain,
    load_rules,
    save_rules,
)

CONFIG, SESSION = "config", "session"


def registry_resolver(registry) -> Resolve:
    """Language tag → canonical name through a runner registry (None when unknown); `mcp`
    (MCP tool calls) is known whether or not MCP servers are configured."""
    def resolve(tag: str) -> str | None:
        if tag.strip().lower() == MCP:
            return MCP
        return registry.rules_language(tag) if tag.strip() and tag in registry else None
    return resolve


@dataclass(frozen=True)
class Listed:
    """A rule in force as `/rules` and `interp rules` list it."""

    number: int
    kind: str
    rule: Rule
    origin: str  # "config" or "session"


class Policy:
    """The rules in force: those from config.toml, plus allow rules added for the session."""

    def __init__(self, rules: RuleSet, path: Path | str | None, resolve: Resolve) -> None:
        self.rules = rules
        self.rules.resolve = resolve
        self.path = Path(path) if path is not None else None
        self.resolve = resolve
        self._session: set[tuple[str, Rule]] = set()

    @classmethod
    def from_table(cls, table, path: Path | str | None, resolve: Resolve) -> Policy:
        """From an already read `[approval]` table; RulesError (one line, naming the file)."""
        try:
            return cls(RuleSet.from_config(table if table is not None else {}, resolve),
                       path, resolve)
        except RulesError as exc:
            raise RulesError(f"{path}: {exc}" if path is not None else str(exc)) from None

    @classmethod
    def load(cls, path: Path | str, resolve: Resolve) -> Policy:
        """From the `[approval]` table of the file (missing file or table: no rules)."""
        return cls(load_rules(path, resolve), path, resolve)

    @property
    def mode(self) -> str:
        """The configured mode for unmatched blocks: `ask` or `auto`."""
        return self.rules.mode

    def evaluate(self, language: str, code: str, auto: bool) -> Verdict:
        """The verdict for a block in `auto` or `ask` mode."""
        return replace(self.rules, mode="auto" if auto else "ask").evaluate(language, code)

    def has_stopping_rules(self, language: str) -> bool:
        """Whether a deny or ask rule exists for the language."""
        lang = self.rules.canonical(language)
        return any(rule.language == lang for kind in ("deny", "ask") for rule in self.rules.rules(kind))

    def entries(self) -> list[Listed]:
        """Every rule in force, in precedence order (deny, ask, allow), numbered from 1."""
        out: list[Listed] = []
        for kind in KINDS:
            for rule in self.rules.rules(kind):
                origin = SESSION if (kind, rule) in self._session else CONFIG
                out.append(Listed(len(out) + 1, kind, rule, origin))
        return out

    def add(self, kind: str, entry: str, save: bool = False) -> tuple[Rule, bool]:
        """Add a rule for the session, or `save` it to config.toml too; returns it and
        whether it is new. Raises RulesError (bad entry or kind, config not writable)."""
        if kind not in KINDS:
            raise RulesError(f"unknown rule kind {kind!r}; expected one of allow, ask, deny")
        rule = Rule.parse(entry, self.resolve)
        new = rule not in self.rules.rules(kind)
        if save:
            disk = self._disk()
            new = rule not in disk.rules(kind)
            if new:
                disk.add(kind, rule)
                save_rules(self._path(), disk)
            self._session.discard((kind, rule))
        elif new:
            self._session.add((kind, rule))
        self.rules.add(kind, rule)
        return rule, new

    def remove(self, target: str) -> list[Listed]:
        """Remove a rule by its number in `entries()` or as written (or meaning the same);
        one from the config is removed from config.toml too. RulesError if there is none."""
        target = target.strip()
        listed = self.entries()
        if target.isdigit():
            hits = [item for item in listed if item.number == int(target)]
        else:
            try:
                parsed: Rule | None = Rule.parse(target, self.resolve)
            except RulesError:
                parsed = None
            hits = [item for item in listed if item.rule.entry == target or item.rule == parsed]
        if not hits:
            raise RulesError(f"there is no rule {target!r}")
        from_config = [item for item in hits if item.origin == CONFIG]
        if from_config:
            disk = self._disk()
            removed = [disk.remove(item.rule.entry, item.kind) for item in from_config]
            if any(removed):
                save_rules(self._path(), disk)
        for item in hits:
            self.rules.remove(item.rule.entry, item.kind)
            self._session.discard((item.kind, item.rule))
        return hits

    def clear_session(self) -> int:
        """Remove the rules added for this session only (`/reset`); returns how many."""
        added = list(self._session)
        for kind, rule in added:
            self.rules.remove(rule.entry, kind)
        self._session.clear()
        return len(added)

    def _path(self) -> Path:
        if self.path is None:
            raise RulesError("there is no config file to save rules to")
        return self.path

    def _disk(self) -> RuleSet:
        """The rules as the config file has them now (it may have changed meanwhile)."""
        return load_rules(self._path(), self.resolve)


class PolicyApprover:
    """Applies the rules, then asks `ask` (the person) when they say so; see the module doc."""

    def __init__(self, policy: Policy, ask: Approver | None = None,
                 state: ApprovalState | None = None) -> None:
        self.policy = policy
        self.ask = ask
        self.state = state if state is not None else ApprovalState(auto=policy.mode == "auto",
                                                                     policy=policy)

    def __call__(self, proposal: Proposal) -> Decision:
        auto = self.state.auto
        try:
            verdict = self.policy.evaluate(proposal.language, proposal.code, auto)
        except Exception as exc:  # a parser bug must not let a block through unchecked
            verdict = Verdict("ask", None, None, f"the rules could not be checked ({exc})")
        if verdict.action == "deny":
            return Decision(run=False, reason=explain(verdict), policy=True)
        if verdict.action == "allow":
            note = (verdict.reason[0].upper() + verdict.reason[1:] + "."
                    if verdict.rule and not auto else None)
            return Decision(run=True, policy=verdict.rule is not None, notice=note)
        explicit = verdict.rule is not None or self.policy.has_stopping_rules(proposal.language)
        if auto and not explicit:
            return RUN
        why = explain(verdict) if verdict.rule is not None else verdict.reason
        if self.ask is not None and self.policy.entries():  # say which command no rule covers
            if verdict.rule is None and self.policy.rules.canonical(proposal.language) not in (
                    SHELL, MCP):  # a shell command and an MCP tool are named as they are
                why = f"no rule allows this {proposal.language} block"
            return self.put_to_person(replace(proposal, why=why), verdict)
        return self.put_to_person(proposal, verdict, why)

    def put_to_person(self, proposal: Proposal, verdict: Verdict | None = None,
                      why: str | None = None) -> Decision:
        """Ask the person about a block (`why`, or the proposal's own, says what makes it
        ask); with nobody to ask, it does not run. An "always allow" answer adds its rule."""
        if self.ask is None:
            why = why or proposal.why or "it needs approval"
            return Decision(run=False, policy=True, reason=(
                f"{why}, so it needs the user's approval, and there is no terminal to ask on"))
        decision = self.ask(proposal)
        if decision.run and decision.allow:
            decision = self._remember(decision, verdict)
        return decision

    def _remember(self, decision: Decision, verdict: Verdict | None) -> Decision:
        """Add the allow rule the person chose; the notice says what happened."""
        level = "info"
        entries = (decision.allow,) if isinstance(decision.allow, str) else decision.allow
        try:
            rules = [self.policy.add("allow", entry, save=decision.save)[0] for entry in entries]
            where = f"saved to {self.policy.path}" if decision.save else "for this session"
            text = f"Allowed {_names(rules)} from now on ({where})."
        except RulesError as exc:
            level = "warning"
            text = f"Could not add the rule: {exc}."
            if decision.save:
                try:
                    rules = [self.policy.add("allow", entry)[0] for entry in entries]
                    text = (f"Could not save the rule ({exc}); {_names(rules)} "
                            f"{'is' if len(rules) == 1 else 'are'} allowed for this session only.")
                except RulesError:
                    pass
        if verdict is not None and verdict.action == "ask" and verdict.rule is not None:
            text += f" Blocks like this still ask: {explain(verdict)}."
        return replace(decision, allow=None, notice=text, notice_level=level)


def _names(rules: list[Rule]) -> str:
    """`a` or `a` and `b`."""
    return " and ".join(f"`{rule.entry}`" for rule in rules)


# -- listing ------------------------------------------------------------------------------

def rule_lines(items: list[Listed], origins: bool) -> list[str]:
    """`  1  deny   bash: rm *   (config)` lines."""
    width = max((len(item.rule.entry) for item in items), default=0)
    lines = []
    for item in items:
        entry = item.rule.entry.replace("\n", "⏎")
        line = f"  {item.number:>2}  {item.kind:<5}  {entry:<{width}}"
        lines.append((line + f"  ({item.origin})") if origins else line.rstrip())
    return lines


def session_listing(policy: Policy, state: ApprovalState) -> str:
    """What `/rules` shows."""
    items = policy.entries()
    head = (f"Approval mode: {state.mode}. "
            + ("Rules in force (deny beats ask beats allow):" if items else "No approval rules."))
    tail = (f"Config file: {policy.path}. Remove a rule with /rules remove N (or ENTRY); "
            f"add one with /rules add allow|ask|deny ENTRY.")
    return "\n".join([head, *rule_lines(items, origins=True), tail])


__all__ = ["CONFIG", "SESSION", "SHELL", "TABLE", "Listed", "Policy", "PolicyApprover",
           "registry_resolver", "rule_lines", "session_listing"]
