"""What the model is sent: private keys dropped, trimmed to the context window, figures attached."""

from __future__ import annotations

from interp.core.context import fit_messages
from interp.core.vision import MAX_IMAGES, with_images


def has_images(messages: list[dict]) -> bool:
    """True when any message records figure paths (`_images`)."""
    return any(m.get("_images") for m in messages)


def build_payload(history: list[dict], model, vision: bool) -> list[dict]:
    """The request messages for `history`.

    Figures saved by blocks are recorded as paths (`_images`) and, for a vision model, sent
    as image parts built from the files: the newest MAX_IMAGES of them."""
    window = model.context_window()
    chosen = choose_images(history) if vision else {}
    messages = [{k: v for k, v in m.items() if not k.startswith("_")} for m in history]
    indices: list[int | None] = list(range(len(messages)))
    if window and sum(len(str(m.get("content") or "")) for m in messages) >= window:
        task = max(i for i, m in enumerate(history) if m.get("_task") or i == 0)
        marked = [dict(m, interp_output=True) if o.get("_output") else m
                  for m, o in zip(messages, history)]
        marked = [dict(m, interp_index=i) if i in chosen else m for i, m in enumerate(marked)]
        fitted = fit_messages(marked, budget=window - min(4096, window // 4),
                              count=model.count_tokens, task_index=task)
        indices = [m.get("interp_index") for m in fitted.messages]
        messages = [{k: v for k, v in m.items() if not k.startswith("interp_")}
                    for m in fitted.messages]
    return with_images(messages, indices, chosen) if chosen else messages


def choose_images(history: list[dict]) -> dict[int, tuple[list[str], int]]:
    """{message index: (figure paths to send, how many more were left out)}, newest first,
    MAX_IMAGES in all."""
    chosen, budget = {}, MAX_IMAGES
    for i in range(len(history) - 1, -1, -1):
        paths = history[i].get("_images")
        if not isinstance(paths, list) or not paths:
            continue
        if budget <= 0:
            break
        chosen[i] = ([str(p) for p in paths[:budget]], max(0, len(paths) - budget))
        budget -= len(chosen[i][0])
    return chosen
