"""Compaction: the model summarises the earlier conversation, so a long session fits its window.

The system prompt (with the instructions files), the current task and the last blocks stay
verbatim; everything else before them is replaced, in what the model is sent, by a summary the
model writes (what was asked, what was found, the files and variables that matter, what is
left). Nothing is deleted: the summary is a message of its own appended to the conversation,
with a `Compaction` record (history.py) of end N and task T: the messages before index N
(except the system messages and message T, the current task) are the ones it replaces. `view()` builds what the
model sees from the latest such message, so the saved conversation, replays and exports keep
the full history. A summary that comes back too long is asked for again, shorter, once; then
the conversation is left as it was (context.py trims the oldest outputs, as before).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass

from interp.core import events as ev
from interp.core.history import Compaction, Entry, task_indices
from interp.core.prompt.summary import fitted, summary_request, text_of
from interp.models.base import HandedOver, ModelError, Reply, Retrying

PREFIX = ("Summary of the conversation so far (the earlier messages were replaced by it to "
          "fit the context window):\n\n")
MAX_ATTEMPTS = 2
KEEP_SHARE = 0.25  # of the window, at most: the last blocks kept verbatim
SUMMARY_SHARE = 0.15  # of the window: the longest summary accepted (300 to 2000 tokens)
REGROW = 4  # messages added since the last compaction before an automatic one is tried again

class CompactionError(Exception):
    """A conversation could not be compacted; the message says why, in one line."""


@dataclass(frozen=True)
class Plan:
    """What a compaction replaces: view positions summarised, the raw cut and the task."""

    summarized: list[int]  # positions in the view
    end: int  # raw index: the messages from here on are kept
    task: int | None  # raw index of the current task, when it comes before `end`
    kept: int  # messages kept verbatim after the summary
    task_position: int | None = None  # the current task's position in the view, if before


def marker_index(messages: list[Entry]) -> int | None:
    """The index of the latest compaction summary, or None."""
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].compaction is not None:
            return i
    return None


def view_entries(messages: list[Entry]) -> list[tuple[int, Entry]]:
    """(raw index, entry) of what the model is sent, in order (see the module docstring)."""
    k = marker_index(messages)
    entries = [(i, m) for i, m in enumerate(messages) if m.compaction is None]
    if k is None:
        return entries
    end, task = messages[k].compaction.end, messages[k].compaction.task
    if end is None or not 0 < end <= k:
        return entries  # not one interp wrote: the full history
    lead = _leading_system(messages)
    kept = [(i, m) for i, m in entries if i >= end]
    if task is not None and lead <= task < end and messages[task].compaction is None:
        kept.insert(0, (task, messages[task]))
    return [(i, messages[i]) for i in range(lead)] + [(k, messages[k])] + kept


def view(messages: list[Entry]) -> list[Entry]:
    """The messages the model is sent: after a compaction, the system messages, the summary,
    the current task if it came earlier, and the messages kept from then on. A user message
    right after the summary is sent with it, as one message (the summary first): a small
    model given two user messages in a row answers the first."""
    if marker_index(messages) is None:
        return messages
    sent = [m for _, m in view_entries(messages)]
    at = next((i for i, m in enumerate(sent) if m.compaction is not None), None)
    if at is None:  # a summary interp did not write: the full history
        return sent
    after = sent[at + 1] if at + 1 < len(sent) else None
    if (after is not None and after.role == "user" and not after.output
            and isinstance(after.content, str)):
        sent[at:at + 2] = [after.with_content(f"{sent[at].content}\n\n{after.content}")]
    return sent


def plan(messages: list[Entry], window: int | None, keep_all: bool = True) -> Plan | None:
    """What to summarise: everything after the system messages except the current task and the
    last blocks (at most KEEP_SHARE of the window, at least the last block; only the last one
    without `keep_all`); None when nothing new would be summarised."""
    entries = view_entries(messages)
    lead = next((p for p, (_, m) in enumerate(entries)
                 if m.role not in ("system", "developer")), len(entries))
    tasks = [p for p, (_, m) in enumerate(entries) if m.task]
    task = tasks[-1] if tasks else None
    units = _units(entries, lead)
    budget = (window or 32768) * KEEP_SHARE * 4 if keep_all else 0  # characters, ~4 a token
    cut, size = len(entries), 0
    for unit in reversed(units):
        if task is not None and unit[0] <= task:
            break  # the task and what came before it are never in the kept tail's count
        size += sum(_chars(entries[p][1]) for p in unit)
        if size > budget and cut < len(entries):
            break
        cut = unit[0]
    summarized = [p for p in range(lead, cut) if p != task]
    if not any(entries[p][1].compaction is None for p in summarized):
        return None
    end = entries[cut][0] if cut < len(entries) else len(messages)
    task_raw = entries[task][0] if task is not None and task < cut else None
    return Plan(summarized, end, task_raw, len(entries) - cut + (task_raw is not None),
                task if task_raw is not None else None)


class Compactor:
    """Compacts one session's conversation (a SessionState, interp/core/state.py: its
    `messages`, `model`, `totals` and `stop_requested`); `share` of the context window
    starts it by itself."""

    def __init__(self, share: float | None) -> None:
        self.share = share
        self._last_size: int | None = None  # len(messages) after the last compaction
        self._blocked_task: int | None = None  # an automatic one failed during this task
        self._report: dict = {}  # what the last compaction did, for context.compacted

    def due(self, session) -> bool:
        """True when the conversation takes `share` of the window, compacting would help, and
        no automatic compaction failed during this task or ran just before."""
        messages = session.messages
        window = session.model.context_window()
        if not self.share or not window or self._blocked_task == _task_index(messages):
            return False
        if self._last_size is not None and 0 <= len(messages) - self._last_size < REGROW:
            return False
        threshold = self.share * window
        if sum(len(str(m.content or "")) for m in view(messages)) < threshold:
            return False  # a token is at least a character: far from full (no tokenizer call)
        return _tokens(session) >= threshold and plan(messages, window) is not None

    def run(self, session, *, focus: str | None = None,
            auto: bool = False) -> Iterator[ev.Event]:
        """Ask the model for the summary; yields context.compacting (and a warning notice when
        it cannot be done) and returns the summary entry to append, or None."""
        messages, model = session.messages, session.model
        window = model.context_window()
        found = plan(messages, window, keep_all=auto)  # on request: all but the last block
        if found is None:
            yield ev.Notice(level="info", text="Nothing to compact yet.")
            return None
        before = _tokens(session)
        yield ev.ContextCompacting(auto=auto, messages=len(found.summarized), focus=focus)
        entries = view_entries(messages)
        task = entries[found.task_position][1] if found.task_position is not None else None
        shown = sorted(found.summarized + ([found.task_position] if task is not None else []))
        text = fitted([entries[p][1] for p in shown], window, task)
        try:
            summary, attempts = self._summary(session, text, window, focus, before)
        except CompactionError as exc:
            if auto:
                self._blocked_task = _task_index(messages)
            yield ev.Notice(level="warning",
                            text=f"Could not compact the conversation: {exc}; "
                                 f"{'older outputs are trimmed instead' if auto else 'nothing changed'}.")
            return None
        self._last_size = len(messages) + 1
        self._report = dict(auto=auto, summarized=len(found.summarized), kept=found.kept,
                            tokens_before=before, window=window, focus=focus, attempts=attempts)
        return Entry({"role": "user", "content": PREFIX + summary},
                     compaction=Compaction(end=found.end, task=found.task, auto=auto,
                                           focus=focus, summarized=len(found.summarized),
                                           tokens_before=before))

    def done(self, session) -> ev.Event:
        """The context.compacted event, once the summary message is in the conversation."""
        return ev.ContextCompacted(**self._report, tokens_after=_tokens(session))

    def _summary(self, session, text: str, window: int | None, focus: str | None,
                 before: int) -> tuple[str, int]:
        model = session.model
        limit = int(min(2000, max(300, (window or 13333) * SUMMARY_SHARE)))
        limit = min(limit, max(100, before // 2))  # it must save something
        words, note, summary = limit * 3 // 4, "", ""
        for attempt in range(1, MAX_ATTEMPTS + 1):
            reply = _ask(session, summary_request(text, words, focus, note))
            summary = reply.text.strip()
            size = model.count_tokens([{"role": "user", "content": summary}]) if summary else 0
            if summary and size <= limit:
                return summary, attempt
            words = max(50, words // 2)
            note = (f"(Your last summary was {size} tokens, too long: at most {words} words "
                    f"this time.)" if summary else "")
        raise CompactionError(f"the summary was still longer than {limit} tokens after "
                              f"{MAX_ATTEMPTS} tries" if summary else
                              "the model wrote no summary")


def _ask(session, messages: list[dict]) -> Reply:
    """The model's whole reply to `messages` (no tools), its tokens added to the session's
    totals; ModelError becomes CompactionError, stop() a KeyboardInterrupt."""
    parts, reply = [], None
    try:
        for item in session.model.stream(messages, None):
            if isinstance(item, Reply):
                reply = item
            elif isinstance(item, Retrying):
                parts = [] if item.restart else parts
            elif not isinstance(item, HandedOver):
                parts.append(item)
            if session.stop_requested:
                raise KeyboardInterrupt
    except ModelError as exc:
        raise CompactionError(f"the model could not write the summary ({exc})") from None
    reply = reply if reply is not None else Reply("".join(parts), (), None, None)
    totals, usage = session.totals, reply.usage
    if usage is not None:
        totals.prompt_tokens += usage.prompt_tokens
        totals.completion_tokens += usage.completion_tokens
    if usage is None or usage.cost is None:
        totals.cost_known = False
    else:
        totals.cost += usage.cost
    return reply


def _tokens(session) -> int:
    """How many tokens the conversation takes now, as the model would be sent it before any
    trimming (context.py)."""
    messages = [entry.message for entry in view(session.messages)]
    try:
        return int(session.model.count_tokens(messages))
    except Exception:  # a tokenizer's trouble: estimate rather than fail
        return len(json.dumps(messages, default=str)) // 4


def _task_index(messages: list[Entry]) -> int | None:
    tasks = task_indices(messages)
    return tasks[-1] if tasks else None


def _units(entries: list[tuple[int, Entry]], lead: int) -> list[list[int]]:
    """View positions grouped into units that stay together: an assistant message with the
    tool results and output reports after it; any other message alone."""
    units: list[list[int]] = []
    for p in range(lead, len(entries)):
        message = entries[p][1]
        follows = units and entries[units[-1][0]][1].role == "assistant"
        if follows and (message.role == "tool" or message.output):
            units[-1].append(p)
        else:
            units.append([p])
    return units


def _leading_system(messages: list[Entry]) -> int:
    for i, message in enumerate(messages):
        if message.role not in ("system", "developer"):
            return i
    return len(messages)


def _chars(message: Entry) -> int:
    return len(text_of(message.content)) + len(json.dumps(message.tool_calls or ""))


