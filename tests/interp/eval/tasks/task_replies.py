"""Scripted replies for task runs: a model that writes a task's reference and then answers."""

from __future__ import annotations

from fake_openai import Reply
from interp.eval.tasks.catalog import TASKS

FENCE = {"python": "python", "shell": "bash", "javascript": "javascript"}


def text_of(message: dict) -> str:
    content = message.get("content") or ""
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)


def scripted(which: str):
    """A reply function: the task's `which` ("right" or "wrong") reference in a fenced block
    first, then an answer that repeats what the block printed."""
    def reply(body: dict) -> Reply:
        messages = body["messages"]
        sentence = next(text_of(m) for m in messages if m["role"] == "user")
        task = next(t for t in TASKS if t.sentence in sentence)
        if not any(m["role"] == "assistant" for m in messages):
            ref = getattr(task, which)
            return Reply(text=f"I'll do it.\n\n```{FENCE[ref.language]}\n{ref.code}\n```\n")
        return Reply(text="Done. The output was:\n\n" + text_of(messages[-1]))
    return reply
