"""What the model is sent: the provider messages of the history, trimmed to the context window,
figures attached."""

from __future__ import annotations

from interp.core.prompt.context import default_is_output, fit_messages
from interp.core.history import Entry
from interp.core.prompt.vision import MAX_IMAGES, with_images


def has_images(history: list[Entry]) -> bool:
    """True when any entry records figure paths."""
    return any(entry.images for entry in history)


def build_payload(history: list[Entry], model, vision: bool) -> list[dict]:
    """The request messages for `history`.

    Figures saved by blocks are recorded as paths (`Entry.images`) and, for a vision model,
    sent as image parts built from the files: the newest MAX_IMAGES of them."""
    window = model.context_window()
    chosen = choose_images(history) if vision else {}
    messages = [dict(entry.message) for entry in history]  # a model may change its copy
    indices: list[int] = list(range(len(messages)))
    if window and sum(len(str(m.get("content") or "")) for m in messages) >= window:
        task = max(i for i, entry in enumerate(history) if entry.task or i == 0)
        fitted = fit_messages(messages, budget=window - min(4096, window // 4),
                              count=model.count_tokens, task_index=task,
                              outputs=[e.output or default_is_output(e.message) for e in history])
        messages, indices = fitted.messages, list(fitted.kept)
    return with_images(messages, indices, chosen) if chosen else messages


def choose_images(history: list[Entry]) -> dict[int, tuple[list[str], int]]:
    """{message index: (figure paths to send, how many more were left out)}, newest first,
    MAX_IMAGES in all."""
    chosen, budget = {}, MAX_IMAGES
    for i in range(len(history) - 1, -1, -1):
        paths = history[i].images
        if not paths:
            continue
        if budget <= 0:
            break
        chosen[i] = ([str(p) for p in paths[:budget]], max(0, len(paths) - budget))
        budget -= len(chosen[i][0])
    return chosen
