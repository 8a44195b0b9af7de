"""Fit a conversation into a token budget: trim old outputs first, then drop the oldest messages.

Never dropped: the leading system message(s) and the current task (the last real user message,
or ``task_index``). An assistant message and the tool / output messages right after it are
dropped together, so no tool result is left without its call and no call without its results.
Both steps remove the smallest prefix (oldest first) that makes the conversation fit, found by
binary search so ``count`` runs O(log n) times rather than once per message.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

TRIMMED = "[output trimmed to save context]"


@dataclass(frozen=True)
class Fitted:
    """The fitted messages, how many outputs were trimmed and messages dropped, and whether it fits."""

    messages: list[dict]
    trimmed: int = 0
    dropped: int = 0
    fits: bool = True
    kept: tuple[int, ...] = field(default=(), compare=False)  # the positions in the input of the messages kept, in order


def default_is_output(msg: dict) -> bool:
    """Tool results and code-block output messages."""
    return msg.get("role") == "tool" or msg.get("name") == "output"


def fit_messages(
    messages: list[dict],
    budget: int,
    count: Callable[[list[dict]], int],
    keep_last_user: bool = True,
    *,
    task_index: int | None = None,
    is_output: Callable[[dict], bool] = default_is_output,
    outputs: Sequence[bool] | None = None,
) -> Fitted:
    """Return a new list that fits ``budget`` tokens as measured by ``count``; the input is not
    modified. ``outputs`` says which messages are outputs, by position (else ``is_output``)."""
    msgs = list(messages)
    every = tuple(range(len(msgs)))
    if count(msgs) <= budget:
        return Fitted(msgs, kept=every)
    out = list(outputs) if outputs is not None else [is_output(m) for m in msgs]
    protected = _protected(msgs, keep_last_user, task_index, out)
    trimmable = [i for i, m in enumerate(msgs) if i not in protected and out[i] and _trimmable(m)]

    def trim(k: int) -> list[dict]:
        cut = set(trimmable[:k])
        return [dict(m, content=TRIMMED) if i in cut else m for i, m in enumerate(msgs)]

    k = _smallest(len(trimmable), lambda k: count(trim(k)) <= budget)
    if k is not None:
        return Fitted(trim(k), trimmed=k, kept=every)
    msgs = trim(len(trimmable))
    units = [u for u in _units(msgs, out) if protected.isdisjoint(u)]

    def kept(n: int) -> list[int]:
        gone = {i for unit in units[:n] for i in unit}
        return [i for i in every if i not in gone]

    n = _smallest(len(units), lambda n: count([msgs[i] for i in kept(n)]) <= budget)
    fits = n is not None
    n = len(units) if n is None else n
    left = kept(n)
    return Fitted([msgs[i] for i in left], trimmed=len(set(trimmable) & set(left)),
                  dropped=len(msgs) - len(left), fits=fits, kept=tuple(left))


def _protected(msgs: list[dict], keep_last_user: bool, task_index: int | None,
               out: list[bool]) -> set[int]:
    """Indices never dropped: leading system messages and the current task."""
    protected = set()
    for i, msg in enumerate(msgs):
        if msg.get("role") not in ("system", "developer"):
            break
        protected.add(i)
    if task_index is not None:
        if -len(msgs) <= task_index < len(msgs):
            protected.add(task_index % len(msgs))
    elif keep_last_user:
        users = [i for i, m in enumerate(msgs) if m.get("role") == "user" and not out[i]]
        protected.update(users[-1:])
    return protected


def _trimmable(msg: dict) -> bool:
    """Whether replacing the content with the placeholder would save anything."""
    content = msg.get("content")
    return isinstance(content, list) and bool(content) or isinstance(content, str) and len(content) > len(TRIMMED)


def _units(msgs: list[dict], out: list[bool]) -> list[list[int]]:
    """Group indices into drop units: an assistant message with the tool / output messages following it."""
    units: list[list[int]] = []
    for i, msg in enumerate(msgs):
        after_assistant = bool(units) and msgs[units[-1][0]].get("role") == "assistant"
        if after_assistant and msg.get("role") != "assistant" and (msg.get("role") == "tool" or out[i]):
            units[-1].append(i)
        else:
            units.append([i])
    return units


def _smallest(n: int, ok: Callable[[int], bool]) -> int | None:
    """Smallest k in 0..n with ok(k), assuming ok is monotonic; None if not even ok(n)."""
    if not ok(n):
        return None
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo
