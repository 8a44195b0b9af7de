"""llama.cpp grammars (GBNF) that hold a reply to a form."""

from __future__ import annotations

from interp.models.base import TemplateSlot

VALUE_PARTS = 200  # characters (or bracketed lists) of one slot's value at most
LIST_CHARS = 100  # characters of a bracketed list inside a value at most


def slots_grammar(slots: tuple[TemplateSlot, ...]) -> str:
    """A grammar for a reply that is a template's slots (`@mean[` and so on), one a line, in
    order, each with a value and its closing bracket; a value has no line break and holds
    brackets only as lists (`[1, 2]`). A slot's value does not begin with the placeholder it
    refuses, nor with a space (where the model would write it after one)."""
    rules, lines = [], []
    for number, slot in enumerate(slots):
        value = "value"
        if slot.refused.strip() and not set(slot.refused) & set("[]\n"):
            value = f"value{number}"
            rules.append(f"{value} ::= {_not_starting(slot.refused.strip())}")
        lines.append(f'{_literal(slot.start)} {value} "]"')
    newline = ' "\\n" '
    return "\n".join([f"root ::= {newline.join(lines)}",
                      f"value ::= part{{1,{VALUE_PARTS}}}",
                      f'part ::= [^\\[\\]\\n] | "[" [^\\[\\]\\n]{{0,{LIST_CHARS}}} "]"',
                      *rules]) + "\n"


def _not_starting(placeholder: str) -> str:
    """GBNF alternatives for a value that does not begin with `placeholder`: a part of it
    (a proper prefix), or its first characters and then another one, then any parts."""
    rest = f"part{{0,{VALUE_PARTS - 1}}}"
    options = [_literal(placeholder[:k]) for k in range(1, len(placeholder))]
    for k, char in enumerate(placeholder):
        space = "" if k else " "  # no space first: the placeholder would follow it
        other = (f'[^\\[\\]\\n{space}{_class_char(char)}] | '
                 f'"[" [^\\[\\]\\n]{{0,{LIST_CHARS}}} "]"')
        before = f"{_literal(placeholder[:k])} " if k else ""
        options.append(f"{before}({other}) {rest}")
    return " | ".join(f"({option})" for option in options)


def _class_char(char: str) -> str:
    """`char` inside a GBNF character class: as a code point escape, never an operator."""
    point = ord(char)
    return f"\\u{point:04X}" if point <= 0xFFFF else f"\\U{point:08X}"


def _literal(text: str) -> str:
    """`text` as a GBNF string literal."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'
