""""Always allow" rules suggested for a block: one per command of a shell block, from its
program and subcommand words (`git status -s` -> `bash: git status *`); for an MCP tool call
its tool (`mcp: github.create_issue`); else its language.
A command that runs other code (`find -exec`, `xargs`, `sudo`, `sh -c`, `python -c`) is offered
only as written: `find *` would also allow `find / -delete`."""

from __future__ import annotations

import os
import re

from languages.escapes import visible

from interp.approval.rules import MCP, SHELL, Resolve, Rule
from interp.mcpcall import call_name
from interp.approval.shellsplit import ShellParseError, parse_commands

_SUBCOMMAND = re.compile(r"[A-Za-z][A-Za-z0-9_:-]*")
# Programs whose arguments are another command.
_RUNNERS = frozenset({"xargs", "sudo", "doas", "su", "env", "nohup", "timeout", "nice",
                      "ionice", "time", "watch", "exec", "eval", "command", "builtin", "parallel",
                      "ssh", "chroot", "flock", "setsid", "stdbuf", "strace", "busybox", "bash",
                      "sh", "zsh", "dash", "ksh", "fish"})
# Programs that run code given inline with one of these options.
_INLINE = {"python": ("-c",), "node": ("-e", "--eval", "-p", "--print"),
           "perl": ("-e", "-E"), "ruby": ("-e",), "php": ("-r",), "deno": ("eval",),
           "bun": ("-e", "--eval")}
_FIND_ACTIONS = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint",
                           "-fprint0", "-fprintf", "-fls"})


def _glob_escape(word: str) -> str:
    return re.sub(r"([*?[])", r"[\1]", word)


def prefix_rule(language: str, code: str, resolve: Resolve) -> Rule:
    """An "always allow this" rule: `git status -s` → `bash: git status *`; else the whole language."""
    rules = prefix_rules(language, code, resolve)
    return rules[0] if len(rules) == 1 else Rule(rules[0].language, None, language.strip())


def prefix_rules(language: str, code: str, resolve: Resolve) -> list[Rule]:
    """"Always allow" rules for each command of a shell block (`ls -la | head -3` →
    `bash: ls *`, `bash: head *`); else (other languages, unsplittable code) the language."""
    # Per command: its assignments and program plus up to two subcommand-like words
    # (letters, digits, `_:-`; not options or paths), then " *": `npm run test` → `npm run
    # test *`, `ls -la /tmp` → `ls *`.
    tag = language.strip()
    lang = resolve(tag) or tag.lower()
    if lang == MCP and _glob_escape(call_name(code)) == call_name(code) and call_name(code):
        return [Rule(MCP, call_name(code), f"{tag}: {call_name(code)}")]  # this tool
    commands = []
    if lang == SHELL:
        try:
            commands = parse_commands(code)
        except ShellParseError:
            pass
    rules: list[Rule] = []
    for command in commands:
        words = command.words
        program = len(words) - len(command.without_assignments().words)
        if program >= len(words):  # only assignments
            return [Rule(lang, None, tag)]
        if _runs_other_code(command.bare_words[program:]):
            pattern = " ".join(_glob_escape(word) for word in words)
        else:
            n = program + 1
            while n < len(words) and n <= program + 2 and _SUBCOMMAND.fullmatch(words[n]):
                n += 1
            pattern = " ".join(_glob_escape(word) for word in words[:n]) + " *"
        rule = Rule(lang, pattern, f"{tag}: {pattern}")
        if rule not in rules:
            rules.append(rule)
    return rules or [Rule(lang, None, tag)]


def always_choices(language: str, code: str, resolve: Resolve
                   ) -> list[tuple[str, str | tuple[str, ...]]]:
    """What an "always allow" answer may allow for a block, narrowest first: the prefixes of
    its commands (a shell block's: `shell: git status *`), then all code in its language;
    each as (what it allows, in words; the rule entry or entries to add)."""
    prefixes = tuple(rule.entry for rule in prefix_rules(language, code, resolve)
                     if rule.pattern)
    shown = " and ".join(f"`{visible(entry)}`" for entry in prefixes)  # nothing hidden in it
    everything = "every MCP tool" if language == MCP else f"all {language} code"
    return ([(shown, prefixes)] if prefixes else []) + [(everything, language)]


def _runs_other_code(words: tuple[str, ...]) -> bool:
    """Whether a command (program first, unquoted) runs a command or code given to it."""
    program, rest = os.path.basename(words[0]), words[1:]
    if program in _RUNNERS:
        return True
    if program == "find":
        return any(word in _FIND_ACTIONS for word in rest)
    inline = _INLINE.get(re.sub(r"^python[\d.]*$", "python", program))
    return bool(inline) and any(word in inline or word.startswith(inline) for word in rest)
