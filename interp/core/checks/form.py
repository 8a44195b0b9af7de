"""The answer in the form the person asked for. A task may say how its answer is to be
given: a template with named slots (`@mean[value]`, `total[...]`), the words a slot may hold
(`"yes" or "no"`), JSON, a number of decimal places. An answer that does not follow it is
sent back once with what is missing; interp's own wording about answers ("state it in
words") gives way to the task's."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from interp.core.checks.base import Request, TaskView, listed
from interp.models.base import REPEATING

# A sentence of the task that says how the answer is to be written.
_FORM_WORDS = re.compile(r"\b(?:format(?:ted)?|form|template)\b|\b(?:as|in)\s+json\b",
                         re.IGNORECASE)
# A slot of a template: a name (an optional sigil first) and a placeholder in brackets.
_SLOT = re.compile(r"(?<![\w\]])([@$#%]?[A-Za-z_]\w*)\[([^\[\]\n]{1,80})\]")
_JSON = re.compile(r"\bjson\b", re.IGNORECASE)
_JSON_FILE = re.compile(r"\.json\b", re.IGNORECASE)
_PLACES = re.compile(r"\b(\d|one|two|three|four|five|six)\s+(?:decimal\s+(?:places?|digits?)|"
                     r"decimals?|digits?\s+after\s+the\s+(?:decimal\s+)?point)\b", re.IGNORECASE)
_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_DECIMAL = re.compile(r"(?<![\w.])-?\d+\.(\d+)(?![\w.])")
_QUOTED = re.compile(r'"([^"\n]{1,60})"|\u201c([^\u201d\n]{1,60})\u201d')
# what stands between two quoted words of one list of choices: a comma, a slash, "or"
_BETWEEN = re.compile(r"\s*(?:,\s*(?:or\s+)?|/\s*|or\s+)\s*", re.IGNORECASE)
# a placeholder that is itself the choices: words parted by slashes (`yes/no`)
_SLASHED = re.compile(r"[A-Za-z][A-Za-z \-]{1,30}(?:/[A-Za-z][A-Za-z \-]{1,30}){1,5}")
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
    choices: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (slot, the words it may hold)

    def __bool__(self) -> bool:
        return bool(self.slots or self.json or self.decimals is not None)


def answer_form(task: str) -> AnswerForm:
    """The form the task asks its answer in (empty when it asks for none). Only the lines
    that speak of a format, with the template lines right after them, are read for slots and
    JSON, so code a task quotes (`df['price']`) is no template; decimal places are read
    anywhere."""
    said = _form_lines(task)
    slots: list[str] = []
    holds: dict[str, str] = {}  # slot: its placeholder
    for part in said:
        for name, placeholder in _SLOT.findall(part):
            if f"{name}[" not in slots:
                slots.append(f"{name}[")
                holds[f"{name}["] = placeholder.strip()
    wants_json = any(_JSON.search(p) for p in said) and not _JSON_FILE.search(task)
    stated = [int(w) if w.isdigit() else _WORDS[w.lower()] for w in _PLACES.findall(task)]
    decimals = max(stated) if stated else None  # several: only more than the most is wrong
    text = " ".join(said)
    return AnswerForm(tuple(slots), wants_json, decimals,
                      text if len(text) <= FORM_CHARS else text[:FORM_CHARS - 1] + "…",
                      _slot_choices(task, holds) if holds else ())


def _slot_choices(task: str, holds: dict[str, str]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The words each slot may hold, where the task lists them: a placeholder of words parted
    by slashes (`[yes/no]`), or two or more quoted words parted by commas, slashes or "or"
    (`"yes" or "no"`) inside the slot's brackets or after the slot's placeholder (or name) is
    quoted. A quoted placeholder or name is a mention, not a choice."""
    mentions = {}
    for slot, placeholder in holds.items():
        mentions.setdefault(_norm(placeholder), slot)
        mentions.setdefault(_norm(slot[:-1].lstrip("@$#%")), slot)
    found: dict[str, dict[str, str]] = {}  # slot: {a word as compared: as the task writes it}
    for slot, placeholder in holds.items():
        if _SLASHED.fullmatch(placeholder):
            for word in placeholder.split("/"):
                found.setdefault(slot, {}).setdefault(_norm(word), word.strip())
    quoted = [(m.start(), m.end(), m.group(1) or m.group(2)) for m in _QUOTED.finditer(task)]
    for words, start in _choice_lists(task, quoted, mentions):
        slot = (_inside_slot(task, start, holds) or _slashed_as(words, found)
                or _mentioned_before(task, start, quoted, mentions))
        if slot is not None:
            for word in words:
                found.setdefault(slot, {}).setdefault(_norm(word), word.strip())
    return tuple((slot, tuple(found[slot].values())) for slot in holds if slot in found)


def _choice_lists(task: str, quoted: list[tuple[int, int, str]],
                  mentions: dict[str, str]) -> list[tuple[list[str], int]]:
    """Runs of two or more quoted words with only a comma, slash or "or" between them, each
    with where it starts; a mention of a slot ends a run."""
    runs: list[tuple[list[str], int]] = []
    words: list[str] = []
    start = end = 0
    for q_start, q_end, word in quoted:
        if words and _BETWEEN.fullmatch(task[end:q_start]) and _norm(word) not in mentions:
            words.append(word)
        else:
            if len(words) >= 2:
                runs.append((words, start))
            words, start = ([] if _norm(word) in mentions else [word]), q_start
        end = q_end
    if len(words) >= 2:
        runs.append((words, start))
    return runs


def _slashed_as(words: list[str], found: dict[str, dict[str, str]]) -> str | None:
    """The slot whose slashed placeholder names exactly these words."""
    wanted = {_norm(word) for word in words}
    return next((slot for slot, known in found.items() if set(known) == wanted), None)


def _inside_slot(task: str, at: int, holds: dict[str, str]) -> str | None:
    """The slot whose brackets, as the task writes it, hold position `at`."""
    for slot in holds:
        begin = task.find(slot)
        while begin >= 0:
            close = task.find("]", begin)
            if begin < at < close:
                return slot
            begin = task.find(slot, begin + 1)
    return None


def _mentioned_before(task: str, at: int, quoted: list[tuple[int, int, str]],
                      mentions: dict[str, str]) -> str | None:
    """The slot whose placeholder or name is the last one quoted on the line before `at`."""
    line_start = task.rfind("\n", 0, at) + 1
    slot = None
    for q_start, _, word in quoted:
        if q_start >= at:
            break
        if q_start >= line_start and _norm(word) in mentions:
            slot = mentions[_norm(word)]
    return slot


def _norm(text: str) -> str:
    """A word as compared: quotes, blanks and a closing full stop stripped, lower case,
    no blanks after commas."""
    text = re.sub(r",\s+", ",", text.strip().strip("\"'\u201c\u201d`").rstrip(".").strip())
    return text.lower()


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
    absent = [slot for slot in form.slots[:MAX_SLOTS] if not _has_slot(answer, slot)]
    if absent:
        lacks.append("it has no " + listed([f"`{slot}...]`" for slot in absent]))
    for slot, words in form.choices:
        stray = [value.strip() for value in _slot_values(answer, slot)
                 if _norm(value) not in {_norm(word) for word in words}]
        if stray:
            held = listed([f'"{value}"' for value in stray[:3]])
            allowed = listed([f'"{word}"' for word in words], "or")
            lacks.append(f"`{slot}...]` holds {held}, not {allowed}")
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
    the words a slot may hold, JSON, a number of decimal places) is sent back once, saying
    what is missing; the model restates it (its values stay in the conversation)."""
    form = answer_form(view.task)
    if not form:
        return None
    lacks = missing_form(form, view.reply.text)
    if not lacks:
        return None
    asked = f' ("{form.said}")' if form.said else ""
    # an answer stopped repeating itself would be written again the same way: sampled anew,
    # with repeats penalised, where the model declares how
    looped = view.reply.finish_reason == REPEATING and "runaway" in view.samples
    return Request(f"Your answer does not take the form the task asks for{asked}: "
                   f"{'; '.join(lacks)}. Reply with your final answer again in exactly that "
                   "form, with the values the output showed, and no code.",
                   f"The answer does not take the form the task asks for ({'; '.join(lacks)}); "
                   "asking the model to restate it.", retracts=False,
                   sampling="runaway" if looped else None)


def _slot_values(answer: str, slot: str) -> list[str]:
    """What the answer writes in each of its `slot...]`s (blank ones left out)."""
    values, start = [], answer.find(slot)
    while start >= 0:
        close = answer.find("]", start + len(slot))
        if close < 0:
            break
        value = answer[start + len(slot):close]
        if value.strip():
            values.append(value)
        start = answer.find(slot, close)
    return values


def _has_slot(answer: str, slot: str) -> bool:
    start = answer.find(slot)
    return start >= 0 and "]" in answer[start + len(slot):]


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
