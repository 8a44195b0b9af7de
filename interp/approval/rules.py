"""Approval rules: which code blocks run without asking, need a question, or are refused.

Rules live in the ``[approval]`` table of config.toml (``interp.config.settings.default_config_path()``)::

    [approval]
    mode = "ask"                      # ask | auto: what happens when no rule matches
    allow = ["bash: git status", "bash: ls *"]
    ask   = []
    deny  = ["bash: rm *", "node"]

An entry is ``LANGUAGE`` (all code in it) or ``LANGUAGE: PATTERN``; languages go through the
runner registry's aliases (``bash``, ``sh`` → ``shell``). Patterns are case-sensitive fnmatch
globs (``*`` matches anything, newlines too; ``[…]`` is a class); one ending in `` *`` also
matches the bare program (``ls *`` matches ``ls``). Shell blocks are split into simple
commands (``interp.shellsplit``), each matched on its own; other languages match the whole
block, stripped; an MCP tool call (language ``mcp``) matches by its name, ``SERVER.TOOL``
(``mcp: github.*``), its arguments never. Deny beats ask beats allow. A block runs unasked only if every command is
allowed (in ``auto`` mode: if none is denied or asked); an unsplittable shell block asks
(unless its whole language is denied).

Deny and ask rules are tried against a command as written, unquoted (``\\rm``, ``'rm'`` →
``rm``) and both without leading ``NAME=value`` words; allow rules only as written or
unquoted, assignments kept (``bash: ls *`` does not allow ``LD_PRELOAD=x ls``). Redirections
stay in the text, so ``bash: ls *`` allows ``ls > out``. Deny rules guard against mistakes,
not malice: ``sudo``, ``xargs``, ``eval``, ``bash -c`` hide the real command.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, Literal

from interp.approval.shellsplit import ShellParseError, parse_commands
from interp.approval.tomledit import TomlEditError, read_toml, update_table
from interp.mcpcall import LANGUAGE, call_name

Action = Literal["allow", "ask", "deny"]
Resolve = Callable[[str], str | None]
KINDS: tuple[Action, ...] = ("deny", "ask", "allow")
MODES = ("ask", "auto")
SHELL = "shell"
MCP = LANGUAGE  # the language of MCP tool calls: `mcp: SERVER.TOOL` rules (interp.mcpcall)
TABLE = "approval"


class RulesError(ValueError):
    """A problem with the approval rules; the message names the entry or file."""


def _collapse(text: str) -> str:
    """Strip `text` and collapse whitespace runs outside quotes."""
    parts = re.findall(r"""\\.|'[^']*'?|"(?:[^"\\]|\\.)*"?|\s+|[^\s'"\\]+|\\""", text.strip(), re.S)
    return "".join(" " if part.isspace() else part for part in parts)


def _short(text: str, limit: int = 80) -> str:
    text = text.replace("\n", "⏎")
    return text if len(text) <= limit else text[:limit - 1] + "…"


@dataclass(frozen=True)
class Rule:
    """One entry: a canonical language, an optional glob, and the entry as written."""

    language: str
    pattern: str | None = None
    source: str = field(default="", compare=False)

    @classmethod
    def parse(cls, entry: str, resolve: Resolve) -> Rule:
        """Parse `LANGUAGE` or `LANGUAGE: PATTERN`; raises RulesError naming the entry."""
        text = entry.strip() if isinstance(entry, str) else ""
        name, colon, pattern = text.partition(":")
        if not name.strip():
            raise RulesError(f"approval rule {entry!r}: expected 'LANGUAGE' or 'LANGUAGE: PATTERN'")
        language = resolve(name.strip())
        if language is None:
            raise RulesError(f"approval rule {entry!r}: unknown language {name.strip()!r}")
        if colon and not pattern.strip():
            raise RulesError(f"approval rule {entry!r}: empty pattern "
                             f"(write {name.strip()!r} alone for the whole language)")
        if colon:
            pattern = _collapse(pattern) if language == SHELL else pattern.strip()
        return cls(language, pattern if colon else None, text)

    @property
    def entry(self) -> str:
        """The rule as a config entry, e.g. `bash: git status`."""
        if self.source:
            return self.source
        return self.language if self.pattern is None else f"{self.language}: {self.pattern}"

    def matches(self, text: str) -> bool:
        """Whether the glob matches `text` (a rule without a pattern matches everything)."""
        pattern = self.pattern
        if pattern is None or fnmatchcase(text, pattern):
            return True
        return pattern.endswith(" *") and fnmatchcase(text, pattern[:-2])


def _explain(rule: Rule, command: str | None, language: str) -> str:
    """`rule `bash: rm *` matched `rm -rf y`` or `rule `node` covers all javascript code`."""
    if rule.pattern is None or command is None:
        return f"rule `{rule.entry}` covers all {language} code"
    return f"rule `{rule.entry}` matched `{_short(command)}`"


@dataclass(frozen=True)
class Verdict:
    """The outcome for one block: the action, and which rule matched which command."""

    action: Action
    rule: Rule | None
    command: str | None
    reason: str


def explain(verdict: Verdict) -> str:
    """Why a rule decided: "the deny rule `bash: rm *` matched `rm -rf y`" (else the reason)."""
    rule = verdict.rule
    if rule is not None and rule.pattern is None:
        return f"the {verdict.action} rule `{rule.entry}` covers all {rule.language} code"
    if rule is None or verdict.command is None:
        return verdict.reason
    return f"the {verdict.action} rule `{rule.entry}` matched `{_short(verdict.command)}`"


@dataclass
class RuleSet:
    """The allow, ask and deny rules and the mode for unmatched commands."""

    allow: list[Rule] = field(default_factory=list)
    ask: list[Rule] = field(default_factory=list)
    deny: list[Rule] = field(default_factory=list)
    mode: str = "ask"
    resolve: Resolve | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_config(cls, table: Mapping[str, Any], resolve: Resolve) -> RuleSet:
        """Build from an `[approval]` table; raises RulesError listing every problem (one line)."""
        if not isinstance(table, Mapping):
            raise RulesError(f"[{TABLE}] must be a table, got {table!r}")
        problems: list[str] = []
        mode = table.get("mode", "ask")
        if mode not in MODES:
            problems.append(f"[{TABLE}] mode must be one of {', '.join(MODES)}; got {mode!r}")
        lists: dict[str, list[Rule]] = {}
        for kind in KINDS:
            entries = table.get(kind, [])
            if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
                problems.append(f"[{TABLE}] {kind} must be a list of strings, got {entries!r}")
                continue
            lists[kind] = []
            for entry in entries:
                try:
                    lists[kind].append(Rule.parse(entry, resolve))
                except RulesError as exc:
                    problems.append(str(exc))
        if problems:
            raise RulesError("; ".join(problems))
        return cls(lists["allow"], lists["ask"], lists["deny"], mode, resolve)

    def rules(self, kind: str) -> list[Rule]:
        """The list of rules of one kind."""
        if kind not in KINDS:
            raise RulesError(f"unknown rule kind {kind!r}; expected one of {', '.join(KINDS)}")
        return getattr(self, kind)

    def _resolver(self) -> Resolve:
        """The language resolver (without one, tags are taken as they are)."""
        return self.resolve or (lambda tag: tag.strip().lower() or None)

    def _rule(self, rule: Rule | str) -> Rule:
        """`rule` parsed, or re-parsed so its language is canonical."""
        return Rule.parse(rule if isinstance(rule, str) else rule.entry, self._resolver())

    def add(self, kind: str, rule: Rule | str) -> Rule:
        """Add a rule (an entry string or a Rule) unless an equal one is there; returns it."""
        rules, rule = self.rules(kind), self._rule(rule)
        if rule not in rules:
            rules.append(rule)
        return rule

    def remove(self, entry: str, kind: str | None = None) -> list[Rule]:
        """Remove rules written as `entry` or meaning the same; returns those removed."""
        try:
            target: Rule | None = self._rule(entry)
        except RulesError:
            target = None
        removed: list[Rule] = []
        for name in (kind,) if kind else KINDS:
            rules = self.rules(name)
            keep = [r for r in rules if r.entry != entry.strip() and r != target]
            removed += [r for r in rules if r not in keep]
            rules[:] = keep
        return removed

    def _first(self, kind: str, language: str, texts: list[str] | None) -> Rule | None:
        """The first rule of `kind` for `language` matching any of `texts` (None: whole-language only)."""
        for rule in self.rules(kind):
            if rule.language == language and (
                    rule.pattern is None or (texts is not None and any(map(rule.matches, texts)))):
                return rule
        return None

    def canonical(self, language: str) -> str:
        """The canonical name of a language tag (the tag itself when unknown)."""
        return self._resolver()(language) or language.strip().lower()

    def evaluate(self, language: str, code: str) -> Verdict:
        """Decide allow/ask/deny for a block, naming the rule and command that decided it."""
        lang = self.canonical(language)
        if lang == MCP:
            name = call_name(code)
            items = [(name, [name], [name])]
        elif lang != SHELL:
            items = [(code.strip(), [code.strip()], [code.strip()])]
        else:
            try:
                commands = parse_commands(code)
            except ShellParseError as exc:
                rule = self._first("deny", lang, None)
                if rule:
                    return Verdict("deny", rule, None, f"denied by policy: {_explain(rule, None, lang)}")
                return Verdict("ask", None, None, f"the shell block could not be split ({exc})")
            items = []
            for cmd in commands:
                plain = cmd.without_assignments()
                items.append((cmd.text, [cmd.text, cmd.bare],
                              list(dict.fromkeys([cmd.text, cmd.bare, plain.text, plain.bare]))))
        return self._decide(lang, items)

    def _decide(self, lang: str, items: list[tuple[str, list[str], list[str]]]) -> Verdict:
        """Apply deny, then ask, then allow to (command, allow texts, deny/ask texts) items."""
        for kind, verb in (("deny", "denied by policy"), ("ask", "needs approval")):
            for command, _, texts in items or [(None, [], None)]:
                rule = self._first(kind, lang, texts)
                if rule:
                    return Verdict(kind, rule, command, f"{verb}: {_explain(rule, command, lang)}")
        matched: list[tuple[Rule, str]] = []
        for command, texts, _ in items:
            rule = self._first("allow", lang, texts)
            if rule:
                matched.append((rule, command))
            elif self.mode != "auto":
                return Verdict("ask", None, command, f"no rule allows `{_short(command)}`")
        if not items:
            return Verdict("allow", None, None, "the block has no commands")
        if len(matched) < len(items):
            return Verdict("allow", None, None, "auto mode: no rule denies or asks")
        reason = "; ".join(dict.fromkeys(_explain(rule, command, lang) for rule, command in matched))
        return Verdict("allow", matched[0][0], matched[0][1] if len(matched) == 1 else None,
                       f"allowed by policy: {reason}")

    def to_table(self) -> dict[str, str | list[str]]:
        """The `[approval]` table's mode and entry lists."""
        lists = {kind: [rule.entry for rule in self.rules(kind)] for kind in ("allow", "ask", "deny")}
        return {"mode": self.mode, **lists}


def load_rules(path: Path | str, resolve: Resolve) -> RuleSet:
    """The rules in config.toml's `[approval]` table; a missing file or table means none."""
    try:
        return RuleSet.from_config(read_toml(path).get(TABLE, {}), resolve)
    except (RulesError, TomlEditError) as exc:
        raise RulesError(exc if isinstance(exc, TomlEditError) else f"{path}: {exc}") from None


def save_rules(path: Path | str, ruleset: RuleSet) -> None:
    """Write the rules into config.toml's `[approval]` table, leaving the rest byte-identical."""
    try:
        update_table(path, TABLE, ruleset.to_table())
    except TomlEditError as exc:
        raise RulesError(str(exc)) from None
