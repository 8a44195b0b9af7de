"""The summariser's request: the earlier conversation as plain text, bounded to fit the
model's window, and what the model is asked to write (interp/core/prompt/compaction.py)."""

from __future__ import annotations

import json

from interp.core.history import Entry

_CAP = 4000  # characters of one message in the transcript, at first

_SYSTEM = ("You write the summary that replaces the earlier part of a conversation between a "
           "user and interp, an assistant that completes tasks by running code on the user's "
           "computer. The summary is all the assistant will have of that part, so keep every "
           "fact needed to carry on the work, and nothing else.")
_ASK = """The conversation so far:

{transcript}

---
Write the summary now, in at most {words} words, under these four headings:
Asked: what the user asked for (their words where they matter).
Found: results, numbers, errors and how they were fixed.
Files and names: the files read or written (with paths), and the variables, functions, \
tables, columns and installed packages that exist now.
Left to do: what is unfinished or was planned next.
Plain text, no code blocks.{focus}"""


def transcript(entries: list[Entry], cap: int = _CAP, current: Entry | None = None) -> str:
    """The messages as plain text for the summariser, each at most `cap` characters;
    `current` is the current task (it stays in the conversation as it is)."""
    parts = []
    for message in entries:
        role, text = message.role, text_of(message.content)
        if message is current:
            parts.append(f"User (the current task, kept word for word after the summary): "
                         f"{_shorten(text, cap)}")
        elif message.compaction is not None:
            parts.append(f"Summary of what came before:\n{_shorten(text, cap * 2)}")
        elif role == "user" and not message.output:
            parts.append(f"User: {_shorten(text, cap)}")
        elif role == "assistant":
            calls = [_call_text(c) for c in message.tool_calls]
            parts.append("Assistant: " + _shorten("\n".join([text, *calls]).strip(), cap))
        elif role in ("tool", "user"):
            parts.append(f"Result: {_shorten(text, cap)}")
    return "\n\n".join(parts)


def summary_request(text: str, words: int, focus: str | None, note: str = "") -> list[dict]:
    """The messages that ask the model for the summary."""
    focus_line = f"\nPay most attention to: {focus}." if focus else ""
    ask = _ASK.format(transcript=text, words=words, focus=focus_line)
    return [{"role": "system", "content": _SYSTEM},
            {"role": "user", "content": f"{ask}\n{note}".rstrip()}]


def fitted(messages: list[Entry], window: int | None, current: Entry | None = None) -> str:
    """The transcript, shortened until the request leaves room in the window for the reply:
    each message cut shorter, then the oldest left out (a summary from before and the current
    task stay)."""
    room = int((window or 131072) * 0.6) * 3  # characters, at a cautious 3 to a token
    cap = _CAP
    text = transcript(messages, cap, current)
    while len(text) > room and cap > 300:
        cap //= 2
        text = transcript(messages, cap, current)
    rest = list(messages)
    while len(text) > room:
        drop = [m for m in rest if m.compaction is None and m is not current][:max(1, len(rest) // 8)]
        if not drop:
            break
        rest = [m for m in rest if all(m is not d for d in drop)]
        text = transcript(rest, cap, current)
    return text


def text_of(content: object) -> str:
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""


def _call_text(call: dict) -> str:
    raw = (call.get("function") or {}).get("arguments") or ""
    try:
        args = json.loads(raw)
    except ValueError:
        args = None
    if isinstance(args, dict) and isinstance(args.get("code"), str):
        return f"[runs {args.get('language') or 'code'}]\n{args['code']}"
    return f"[calls {(call.get('function') or {}).get('name')}] {raw}"


def _shorten(text: str, cap: int) -> str:
    if len(text) <= cap:
        return text
    head = cap * 2 // 3
    tail = cap - head
    return f"{text[:head]}\n[... {len(text) - cap} characters left out ...]\n{text[-tail:]}"
