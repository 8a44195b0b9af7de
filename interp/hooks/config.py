"""The `[[hooks.EVENT]]` tables of config.toml as typed records:

    [[hooks.PreToolUse]]
    matcher = "shell: git push *"   # a language, an approval-rule entry, a list of them, or "*"
    command = "~/bin/check-push"    # run with bash, JSON on its standard input
    timeout = 10                    # seconds (default 60)

A table that is not right stops interp with one line naming the problem (a hook meant as a
guard must never be dropped silently)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from interp.approval.rules import Resolve, Rule, RuleSet, RulesError

SESSION_START, PRE_TOOL_USE, POST_TOOL_USE, STOP = (
    "SessionStart", "PreToolUse", "PostToolUse", "Stop")
EVENTS = (SESSION_START, PRE_TOOL_USE, POST_TOOL_USE, STOP)
SOURCES = ("startup", "resume", "clear")  # what SessionStart matchers match
DEFAULT_TIMEOUT = 60.0  # seconds, as Claude Code's
KEYS = frozenset({"matcher", "command", "timeout"})
TABLE = "hooks"


class HooksError(ValueError):
    """A `[hooks]` table interp cannot use; the message names the entry and the problem."""


@dataclass(frozen=True)
class Matcher:
    """What a hook is for: blocks whose language (and, as an approval rule, whose commands or
    MCP tool) match one of `rules`; for SessionStart, one of `sources`. Empty: everything."""

    rules: tuple[Rule, ...] = ()
    sources: tuple[str, ...] = ()
    text: str = "*"

    def matches_block(self, language: str, code: str, resolve: Resolve) -> bool:
        """Whether a block (an MCP call: language `mcp`) is one the hook is for. A shell block
        that cannot be split counts as matching a rule of its language: the hook runs rather
        than a guard being skipped."""
        if not self.rules:
            return True
        for rule in self.rules:
            rules = RuleSet(ask=[rule], resolve=resolve)
            if rules.canonical(language) != rule.language:
                continue
            verdict = rules.evaluate(language, code)
            if verdict.rule is not None or (verdict.action == "ask" and verdict.command is None):
                return True
        return False

    def matches_source(self, source: str) -> bool:
        return not self.sources or source in self.sources


@dataclass(frozen=True)
class Hook:
    """One command, the event it runs at, what it is for and how long it may take."""

    event: str
    command: str
    matcher: Matcher = Matcher()
    timeout: float = DEFAULT_TIMEOUT


@dataclass(frozen=True)
class HookSet:
    """Every hook of config.toml, by event, in the order written."""

    hooks: tuple[Hook, ...] = ()

    def at(self, event: str) -> tuple[Hook, ...]:
        return tuple(hook for hook in self.hooks if hook.event == event)

    def __bool__(self) -> bool:
        return bool(self.hooks)


def parse_hooks(table: Any, resolve: Resolve, source: str = "config.toml") -> HookSet:
    """The hooks of a `[hooks]` table (None: none); HooksError naming `source` and the entry."""
    if table is None:
        return HookSet()
    if not isinstance(table, Mapping):
        raise HooksError(f"{source}: [{TABLE}] must be a table of [[{TABLE}.EVENT]] entries")
    hooks: list[Hook] = []
    for event, entries in table.items():
        where = f"{source}: [[{TABLE}.{event}]]"
        if event not in EVENTS:
            raise HooksError(f"{where}: interp has no {event!r} hooks (it runs "
                             f"{', '.join(EVENTS)})")
        if isinstance(entries, Mapping):
            entries = [entries]
        if not isinstance(entries, list):
            raise HooksError(f"{where}: expected a list of tables with a command each")
        for number, entry in enumerate(entries, 1):
            hooks.append(_hook(event, entry, resolve, f"{where} #{number}"))
    return HookSet(tuple(hooks))


def _hook(event: str, entry: Any, resolve: Resolve, where: str) -> Hook:
    if not isinstance(entry, Mapping):
        raise HooksError(f"{where}: expected a table with a command")
    unknown = sorted(set(entry) - KEYS)
    if unknown:
        hint = (" (write command = \"...\" in the entry itself)" if "hooks" in unknown else "")
        raise HooksError(f"{where}: unknown key {unknown[0]!r}{hint}; a hook has "
                         f"{', '.join(sorted(KEYS))}")
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip():
        raise HooksError(f"{where}: command must be a non-empty string")
    timeout = entry.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0:
        raise HooksError(f"{where}: timeout must be a positive number of seconds, "
                         f"got {timeout!r}")
    return Hook(event, command, _matcher(event, entry.get("matcher"), resolve, where),
                float(timeout))


def _matcher(event: str, raw: Any, resolve: Resolve, where: str) -> Matcher:
    if raw is None:
        return Matcher()
    items = [raw] if isinstance(raw, str) else raw
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        raise HooksError(f"{where}: matcher must be a string or a list of strings")
    items = [item.strip() for item in items if item.strip() not in ("", "*")]
    text = ", ".join(items) or "*"
    if not items:
        return Matcher()
    if event == STOP:
        raise HooksError(f"{where}: Stop hooks take no matcher")
    if event == SESSION_START:
        wrong = [item for item in items if item not in SOURCES]
        if wrong:
            raise HooksError(f"{where}: a SessionStart matcher is one of "
                             f"{', '.join(SOURCES)}, not {wrong[0]!r}")
        return Matcher(sources=tuple(items), text=text)
    try:
        return Matcher(rules=tuple(Rule.parse(item, resolve) for item in items), text=text)
    except RulesError as exc:
        raise HooksError(f"{where}: matcher {exc}".replace("approval rule ", "")) from None
