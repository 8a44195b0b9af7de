"""The answer in the form the person asked for. A task may say how its answer is to be
given: a template with named slots (`@mean[value]`, `total[...]`), JSON, a number of decimal
places. An answer that does not follow it is sent back once with what is missing; interp's
own wording about answers ("state it in words") gives way to the task's."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

from interp.core.checks.base import Request, TaskView, listed
from interp.core.checks.choices import is_choice, slot_choices
from interp.models.base import REPEATING, Slot

# A sentence of the task that says how the answer is to be written.
_FORM_WORDS = re.compile(r"\b(?:format(?:ted)?|form|template)\b|\b(?:as|in)\s+json\b",
                         re.IGNORECASE)
# A slot of a template: a name (an optional sigil first) and a placeholder in brackets, which
# may describe its value at length ("@p_value[The p-value of the test, rounded to three decimal
# places]"); one line, no brackets inside.
PLACEHOLDER_CHARS = 300
_SLOT = re.compile(r"(?<![\w\]])([@$#%]?[A-Za-z_]\w*)\[([^\[\]\n]{1," + str(PLACEHOLDER_CHARS)
                   + r"})\]")
_JSON = re.compile(r"\bjson\b", re.IGNORECASE)
_JSON_FILE = re.compile(r"\.json\b", re.IGNORECASE)
_PLACES = re.compile(r"\b(\d|one|two|three|four|five|six)\s+(?:decimal\s+(?:places?|digits?)|"
                     r"decimals?|digits?\s+after\s+the\s+(?:decimal\s+)?point)\b", re.IGNORECASE)
# Words that make a sentence a condition: its slots are an alternative answer, not required.
_CONDITION = re.compile(r"\b(?:if|unless|otherwise|else)\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.;!?](?=\s)")
_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_DECIMAL = re.compile(r"(?<![\w.])-?\d+\.(\d+)(?![\w.])")
# What follows a slot left with its placeholder, up to the next slot or the line's end: the
# value written beside it ("@total[value] = 4.25", "@total[value]: 4.25")
_NEXT_SLOT = r"[@$#%]?[A-Za-z_]\w*\["
_AFTER = re.compile(r"[ \t]*(?:=|:|\bis\b)?[ \t]*(?!" + _NEXT_SLOT + r")([^\n\[\]]{1,80}?)"
                    r"[ \t]*[,;.}]*[ \t]*(?=" + _NEXT_SLOT + r"|$)", re.MULTILINE)
_EDGE = " \t,;:."  # trimmed off a value recovered from beside the template's words
MIN_COPIED = 3  # words of a placeholder, copied into a slot beside the value, that say so
MAX_SLOTS = 12  # slots named in one request
JSON_STARTS = 20  # brackets of an answer tried as the start of its JSON value
FORM_CHARS = 600  # of the task's form statement quoted in a request


@dataclass(frozen=True)
class AnswerForm:
    """What a task says of its answer's form: the template's slots (their literal start, as
    `@mean[`), whether it wants JSON, how many decimal places, and the words that say so."""

    slots: tuple[str, ...] = ()
    json: bool = False
    decimals: int | None = None
    said: str = ""
    placeholders: tuple[str, ...] = ()  # what the template writes in each slot, in order
    optional: tuple[str, ...] = ()  # slots given in a condition ("if there are none, @x[...]")
    choices: tuple[tuple[str, ...], ...] = ()  # the values each slot may take, as listed

    def __bool__(self) -> bool:
        return bool(self.slots or self.json or self.decimals is not None)

    @property
    def required(self) -> tuple[str, ...]:
        """The slots every answer must hold (all of them when each is a condition's), at
        most MAX_SLOTS."""
        return (tuple(s for s in self.slots if s not in self.optional) or self.slots)[:MAX_SLOTS]

    def template(self) -> tuple[Slot, ...]:
        """The required slots as a reply is held to them, each with its listed values."""
        listed_for = dict(zip(self.slots, self.choices))
        return tuple(Slot(slot, listed_for.get(slot, ())) for slot in self.required)

    def lines(self, given: dict[str, str] | None = None) -> str:
        """The required slots, one a line, each with the value `given` for it, or else its
        placeholder."""
        filled = dict(zip(self.slots, self.placeholders)) | (given or {})
        return "\n".join(f"{slot}{filled[slot]}]" for slot in self.required)


def answer_form(task: str) -> AnswerForm:
    """The form the task asks its answer in (empty when it asks for none). Only the lines
    that speak of a format, with the template lines right after them, are read for slots and
    JSON, so code a task quotes (`df['price']`) is no template; decimal places are read
    anywhere."""
    said = _form_lines(task)
    slots: list[str] = []
    placeholders: list[str] = []
    optional: list[str] = []
    for part in said:
        for found in _SLOT.finditer(part):
            name, placeholder = found.groups()
            if f"{name}[" not in slots:
                slots.append(f"{name}[")
                placeholders.append(placeholder)
                if _in_condition(part, found.start()):
                    optional.append(f"{name}[")
    wants_json = any(_JSON.search(p) for p in said) and not _JSON_FILE.search(task)
    stated = [int(w) if w.isdigit() else _WORDS[w.lower()] for w in _PLACES.findall(task)]
    decimals = max(stated) if stated else None  # several: only more than the most is wrong
    text = " ".join(said)
    choices = tuple(slot_choices(task, slot, placeholder)
                    for slot, placeholder in zip(slots, placeholders))
    return AnswerForm(tuple(slots), wants_json, decimals,
                      text if len(text) <= FORM_CHARS else text[:FORM_CHARS - 1] + "…",
                      tuple(placeholders), tuple(optional), choices)


def _in_condition(line: str, at: int) -> bool:
    """Whether the sentence of `line` that reaches `at` is a condition up to there."""
    starts = [end.end() for end in _SENTENCE_END.finditer(line, 0, at)]
    return bool(_CONDITION.search(line, starts[-1] if starts else 0, at))


def _form_lines(task: str) -> list[str]:
    """The lines of the task that say how to answer: each line with a word about the form,
    and the lines after it that hold template slots."""
    lines = [line.strip() for line in task.splitlines()]
    said: list[str] = []
    at = 0
    while at < len(lines):
        if not _FORM_WORDS.search(lines[at]):
            at += 1
            continue
        said.append(lines[at])
        at += 1
        while at < len(lines) and _SLOT.search(lines[at]):
            said.append(lines[at])
            at += 1
    return said


def missing_form(form: AnswerForm, answer: str) -> list[str]:
    """What `answer` lacks of `form`, in words ([] when it follows it)."""
    lacks = []
    required = form.required
    absent = [slot for slot in required if not _has_slot(answer, slot)]
    if set(required) <= set(form.optional) and len(absent) < len(required):
        absent = []  # every slot is a condition's: any one of them answers
    if absent:
        lacks.append("it has no " + listed([f"`{slot}...]`" for slot in absent]))
    unfilled = [slot for slot, placeholder in zip(form.slots[:MAX_SLOTS], form.placeholders)
                if _only_placeholder(answer, slot, placeholder)]
    if unfilled:
        lacks.append(f"{listed([f'`{slot}...]`' for slot in unfilled])} still "
                     f"{'holds' if len(unfilled) == 1 else 'hold'} the template's placeholder "
                     "instead of the value")
    padded = [slot for slot in given_values(form, answer) if slot not in unfilled]
    if padded:
        lacks.append(f"{listed([f'`{slot}...]`' for slot in padded])} "
                     f"{'holds' if len(padded) == 1 else 'hold'} words of the template's "
                     "placeholder beside the value")
    for slot, held in unchosen(form, answer).items():
        offered = listed(['"' + c + '"' for c in form.choices[form.slots.index(slot)]], "or")
        lacks.append(f"`{slot}{held}]` is none of the values the task lists for it "
                     f"({offered}): write the one the output shows applies")
    if form.json and not form.slots and not _has_json(answer):
        lacks.append("it holds no JSON value")
    if form.decimals is not None:
        longer = [m.group(0) for m in _DECIMAL.finditer(answer) if len(m.group(1)) > form.decimals]
        if longer:
            lacks.append(f"{listed(longer[:3])} {'has' if len(longer) == 1 else 'have'} more "
                         f"than {form.decimals} decimal place{'s' if form.decimals != 1 else ''}")
    return lacks


def answer_format(view: TaskView) -> Request | None:
    """A final answer that does not take the form the task asks for (its template's slots,
    filled with values, not the placeholders; JSON; a number of decimal places) is sent back
    once, saying what is missing and showing the template's lines to copy; the model restates
    it (its values stay in the conversation), held to the template's slots where it can be
    (`Request.template`) when the last block that ran ended well."""
    form = answer_form(view.task)
    if not form:
        return None
    lacks = missing_form(form, view.reply.text)
    if not lacks:
        return None
    asked = f' ("{form.said}")' if form.said else ""
    given = given_values(form, view.reply.text)
    held = {slot: value for slot, value in _held(form, view.reply.text).items()
            if slot not in unchosen(form, view.reply.text)}
    lines = form.lines(held | given if given else None)
    fill = ("which hold the values your answer gave (replace any placeholder left in brackets "
            "with its value)" if given else
            "and replace each placeholder (the text in brackets) with its value")
    copy = (f": copy these lines, {fill}; the text before each bracket stays as it is:"
            f"\n{lines}") if lines else "."
    # an answer stopped repeating itself would be written again the same way: sampled anew,
    # with repeats penalised, where the model declares how
    looped = view.reply.finish_reason == REPEATING and "runaway" in view.samples
    return Request(f"Your answer does not take the form the task asks for{asked}: "
                   f"{'; '.join(lacks)}. Reply with your final answer again in exactly that "
                   f"form, with the values the output showed, and no code{copy}",
                   f"The answer does not take the form the task asks for ({'; '.join(lacks)}); "
                   "asking the model to restate it.", retracts=False,
                   sampling="runaway" if looped else None,
                   template=form.template() if _last_ran_ok(view) else ())


def _last_ran_ok(view: TaskView) -> bool:
    """Whether the last block of the task that ran ended well: only then do the outputs hold
    values to fill a template with (after a failure, holding the reply to the slots would make
    the model write values it never computed, where it may need to say what went wrong)."""
    ran = view.ran
    return bool(ran) and ran[-1].status == "ok"


def _only_placeholder(answer: str, slot: str, placeholder: str) -> bool:
    """Whether the answer has `slot...]`, and every one of them holds just the template's
    placeholder."""
    wanted, start, seen = placeholder.strip().lower(), answer.find(slot), False
    while start >= 0:
        close = answer.find("]", start + len(slot))
        if close < 0 or answer[start + len(slot):close].strip().lower() != wanted:
            return False
        seen, start = True, answer.find(slot, close)
    return seen


def given_values(form: AnswerForm, answer: str) -> dict[str, str]:
    """The values an answer gave for required slots it left in the template's words: written
    after a slot that still holds the placeholder (`@mean[value] = 4.25`), or inside the slot
    beside words copied from the placeholder (`@skew[0.14, rounded to two decimal places]`).
    A small model copies the template and then writes its value; shown the slots with those
    values, it can restate the answer in form without computing anything again."""
    given = {}
    for slot, held, close, placeholder in _slots_held(form, answer):
        if held.lower() == placeholder.lower():
            after = _AFTER.match(answer, close + 1)
            value = after.group(1).strip(_EDGE) if after else ""
        else:
            value = _beside(held, placeholder)
        if value and value.lower() != placeholder.lower():
            given[slot] = value
    return given


def unchosen(form: AnswerForm, answer: str) -> dict[str, str]:
    """What the answer holds in each slot whose values the task lists, when it is none of
    them (`@normal[False]` where the task said "yes" or "no"), other than the placeholder."""
    listed_for = dict(zip(form.slots, form.choices))
    return {slot: held for slot, held in _held(form, answer).items()
            if listed_for.get(slot) and not is_choice(held, listed_for[slot])}


def _held(form: AnswerForm, answer: str) -> dict[str, str]:
    """What the answer holds in each required slot it has, other than the placeholder."""
    return {slot: held for slot, held, _, placeholder in _slots_held(form, answer)
            if held and held.lower() != placeholder.lower()}


def _slots_held(form: AnswerForm, answer: str) -> Iterator[tuple[str, str, int, str]]:
    """Each required slot the answer has: (slot, what its first one holds, where its bracket
    closes, the template's placeholder), stripped."""
    placeholders = dict(zip(form.slots, form.placeholders))
    for slot in form.required:
        found = _first_slot(answer, slot)
        if found is not None:
            yield slot, found[0], found[1], placeholders[slot].strip()


def _first_slot(answer: str, slot: str) -> tuple[str, int] | None:
    """What the answer's first `slot...]` holds, stripped, and where its bracket closes."""
    start = answer.find(slot)
    close = answer.find("]", start + len(slot)) if start >= 0 else -1
    return (answer[start + len(slot):close].strip(), close) if close >= 0 else None


def _beside(held: str, placeholder: str) -> str:
    """What a slot holds besides a run of at least MIN_COPIED words that begins or ends both
    it and the template's placeholder ("" when it copied none)."""
    ours, theirs = held.split(), placeholder.split()

    def same(a: str, b: str) -> bool:
        return a.strip(_EDGE).lower() == b.strip(_EDGE).lower()

    tail = 0
    while tail < min(len(ours), len(theirs)) and same(ours[-1 - tail], theirs[-1 - tail]):
        tail += 1
    if tail >= MIN_COPIED:
        return " ".join(ours[:-tail]).strip(_EDGE)
    head = 0
    while head < min(len(ours), len(theirs)) and same(ours[head], theirs[head]):
        head += 1
    return " ".join(ours[head:]).strip(_EDGE) if head >= MIN_COPIED else ""


def _has_slot(answer: str, slot: str) -> bool:
    return _first_slot(answer, slot) is not None


def _has_json(answer: str) -> bool:
    """Whether the answer holds a JSON object or array (bare or in a fence); the first
    JSON_STARTS brackets are tried."""
    starts = [at for at, char in enumerate(answer) if char in "{["][:JSON_STARTS]
    for start in starts:
        try:
            json.JSONDecoder().raw_decode(answer[start:])
            return True
        except (ValueError, RecursionError):
            continue
    return False
