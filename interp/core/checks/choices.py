"""The values a template's slot may take, where the task lists them: in the slot itself
(`@normal[yes/no]`, `@kind[either "a" or "b"]`) or in a sentence that describes its
placeholder (`where "kind" is a string that can be "linear", "nonlinear" or "none"`). An
answer that writes something else in such a slot (`False`, a formula, a number) did not
choose one of them."""

from __future__ import annotations

import re

# Words after which a sentence lists the values something may take.
_LISTS = re.compile(r"\b(?:either|one\s+of|can\s+be|could\s+be|may\s+be|must\s+be)\b",
                    re.IGNORECASE)
# Words after which quoted text is an example, not a choice.
_EXAMPLE = re.compile(r"\b(?:for\s+example|for\s+instance|e\.g\.|such\s+as)", re.IGNORECASE)
_QUOTED = re.compile(r"\"([^\"\n]{1,40})\"|'([^'\n]{1,40})'|“([^”\n]{1,40})”|`([^`\n]{1,40})`")
# The end of a sentence: a stop before a space or the line's end, a semicolon, a new line.
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|;|\n")
# A choice written bare between slashes: words of two letters or more, optionally quoted
# (`yes/no`, `"Yes"/"No"`; not a unit such as `km/h`).
_BARE = re.compile(r"[\"'“”`]?[A-Za-z][A-Za-z _-]{1,30}[\"'“”`]?")
# Further quoted names joined to the first ("x" and "y" are strings that can be ...).
_NAMED_WITH = re.compile(r"(?:\s*(?:,|\band\b)\s*(?:\"[^\"\n]{1,40}\"|'[^'\n]{1,40}'))*")
MAX_CHOICES = 8


def slot_choices(task: str, slot: str, placeholder: str) -> tuple[str, ...]:
    """The values the slot (`@name[`) with `placeholder` may take, as the task lists them
    (() when it lists none, or fewer than two)."""
    placeholder = placeholder.strip()
    return (_listed(placeholder) or _slashed(placeholder) or _described(task, placeholder)
            or _described(task, slot.lstrip("@$#%").rstrip("[")))


def is_choice(value: str, choices: tuple[str, ...]) -> bool:
    """Whether `value` is one of `choices`, quotes, case, spaces and a final stop aside."""
    return _plain(value) in {_plain(choice) for choice in choices}


def _plain(text: str) -> str:
    return " ".join(text.strip().strip("\"'“”`").strip(" .").lower().split())


def _listed(text: str) -> tuple[str, ...]:
    """The quoted values listed after a listing word in the first sentence of `text`, up to
    an example, when no quoted text comes before that word."""
    end = _SENTENCE_END.search(text)
    sentence = text[:end.start()] if end else text
    words = _LISTS.search(sentence)
    if words is None or _QUOTED.search(sentence, 0, words.start()):
        return ()
    example = _EXAMPLE.search(sentence, words.end())
    stop = example.start() if example else len(sentence)
    found = [next(group for group in quoted.groups() if group is not None).strip()
             for quoted in _QUOTED.finditer(sentence, words.end(), stop)]
    choices = tuple(dict.fromkeys(choice for choice in found if choice))
    return choices if 2 <= len(choices) <= MAX_CHOICES else ()


def _slashed(placeholder: str) -> tuple[str, ...]:
    """`yes/no`, `"Yes"/"No"`: a placeholder that is words between slashes."""
    parts = placeholder.split("/")
    if not 2 <= len(parts) <= MAX_CHOICES or not all(_BARE.fullmatch(p.strip()) for p in parts):
        return ()
    return tuple(part.strip().strip("\"'“”`") for part in parts)


def _described(task: str, placeholder: str) -> tuple[str, ...]:
    """The values listed in a sentence of the task that names the placeholder in quotes
    (alone, or first of several joined by "and") and, before any other quoted text, says
    what it can be."""
    if not placeholder or len(placeholder) > 40:
        return ()
    for quote in ('"', "'", "“", "`"):
        close = "”" if quote == "“" else quote
        named = f"{quote}{placeholder}{close}"
        at = task.find(named)
        while at >= 0:
            rest = at + len(named)
            rest += _NAMED_WITH.match(task, rest).end() - rest
            choices = _listed(task[rest:])
            if choices:
                return choices
            at = task.find(named, at + 1)
    return ()
