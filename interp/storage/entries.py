"""A conversation entry in its saved form: the provider message with interp's facts beside it
under private keys (`_task`, `_output`, `_blocks`, `_images`, `_prompt`, `_compaction`,
`_retracts`), the
JSON shape session files have always had, so older files load and newer ones stay readable."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from interp.core.blocks import BlockRecord
from interp.core.history import Compaction, Entry

TASK, OUTPUT, BLOCKS, IMAGES, PROMPT, COMPACTION, RETRACTS = (
    "_task", "_output", "_blocks", "_images", "_prompt", "_compaction", "_retracts")
_COMPACTION_KEYS = ("end", "task", "auto", "focus", "summarized", "tokens_before")


def to_saved(entry: Entry) -> dict[str, Any]:
    """The saved form of an entry (what a session file's message record holds)."""
    saved = {**entry.extra, **entry.message}
    if entry.task:
        saved[TASK] = True
    if entry.prompt:
        saved[PROMPT] = "interp"
    if entry.output:
        saved[OUTPUT] = True
    if entry.retracts:
        saved[RETRACTS] = True
    if entry.blocks is not None:
        saved[BLOCKS] = [record.to_dict() for record in entry.blocks]
    if entry.images:
        saved[IMAGES] = list(entry.images)
    if entry.compaction is not None:
        c = entry.compaction
        saved[COMPACTION] = {**c.extra, "end": c.end, "task": c.task, "auto": c.auto,
                             "focus": c.focus, "summarized": c.summarized,
                             "tokens_before": c.tokens_before}
    return saved


def from_saved(saved: Mapping[str, Any]) -> Entry:
    """The entry a saved message holds (its private keys become typed fields; other keys that
    start with "_" are kept aside, not sent)."""
    message = {k: v for k, v in saved.items() if not k.startswith("_")}
    extra = {k: v for k, v in saved.items() if k.startswith("_") and k not in _KNOWN}
    raw = saved.get(BLOCKS)
    blocks = (tuple(r for r in map(BlockRecord.from_dict, raw) if r is not None)
              if isinstance(raw, list) else None)
    images = saved.get(IMAGES)
    return Entry(message, task=bool(saved.get(TASK)), output=bool(saved.get(OUTPUT)),
                 blocks=blocks,
                 images=tuple(str(p) for p in images) if isinstance(images, list) else (),
                 prompt=saved.get(PROMPT) == "interp",
                 compaction=_compaction(saved[COMPACTION]) if COMPACTION in saved else None,
                 retracts=bool(saved.get(RETRACTS)), extra=extra)


def _compaction(raw: object) -> Compaction:
    """The compaction marker of a saved summary (one interp did not write has no `end`)."""
    if not isinstance(raw, Mapping):
        return Compaction(end=None)
    end, task = raw.get("end"), raw.get("task")
    summarized, before = raw.get("summarized"), raw.get("tokens_before")
    return Compaction(end=end if _is_int(end) else None, task=task if _is_int(task) else None,
                      auto=bool(raw.get("auto")),
                      focus=raw.get("focus") if isinstance(raw.get("focus"), str) else None,
                      summarized=summarized if _is_int(summarized) else 0,
                      tokens_before=before if _is_int(before) else 0,
                      extra={k: v for k, v in raw.items() if k not in _COMPACTION_KEYS})


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_KNOWN = frozenset({TASK, OUTPUT, BLOCKS, IMAGES, PROMPT, COMPACTION, RETRACTS})
