"""llama.cpp grammars (GBNF) that hold a reply to a form."""

from __future__ import annotations

VALUE_PARTS = 200  # characters (or bracketed lists) of one slot's value at most
LIST_CHARS = 100  # characters of a bracketed list inside a value at most


def slots_grammar(slots: tuple[str, ...]) -> str:
    """A grammar for a reply that is a template's slots (`@mean[` and so on), one a line, in
    order, each with a value and its closing bracket; a value has no line break and holds
    brackets only as lists (`[1, 2]`)."""
    lines = ' "\\n" '.join(f'{_literal(slot)} value "]"' for slot in slots)
    return (f"root ::= {lines}\n"
            f"value ::= part{{1,{VALUE_PARTS}}}\n"
            f'part ::= [^\\[\\]\\n] | "[" [^\\[\\]\\n]{{0,{LIST_CHARS}}} "]"\n')


def _literal(text: str) -> str:
    """`text` as a GBNF string literal."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'
