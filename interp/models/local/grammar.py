"""llama.cpp grammars (GBNF) that hold a reply to a form."""

from __future__ import annotations

from interp.models.base import Slot

VALUE_PARTS = 200  # characters (or bracketed lists) of one slot's value at most
LIST_CHARS = 100  # characters of a bracketed list inside a value at most


def slots_grammar(slots: tuple[Slot, ...]) -> str:
    """A grammar for a reply that is a template's slots (`@mean[` and so on), one a line, in
    order, each with a value and its closing bracket: one of the slot's choices where it has
    them, else text with no line break that holds brackets only as lists (`[1, 2]`)."""
    lines = ' "\\n" '.join(f'{_literal(slot.start)} {_value(slot)} "]"' for slot in slots)
    return (f"root ::= {lines}\n"
            f"value ::= part{{1,{VALUE_PARTS}}}\n"
            f'part ::= [^\\[\\]\\n] | "[" [^\\[\\]\\n]{{0,{LIST_CHARS}}} "]"\n')


def _value(slot: Slot) -> str:
    """The grammar of a slot's value: its choices as alternatives, or any value."""
    if not slot.choices:
        return "value"
    return "(" + " | ".join(_literal(choice) for choice in slot.choices) + ")"


def _literal(text: str) -> str:
    """`text` as a GBNF string literal."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'
