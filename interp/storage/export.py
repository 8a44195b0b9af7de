"""Exporting a conversation as Markdown, a Jupyter notebook (nbformat v4) or JSON.

Blocks are read from their records (interp.core.blocks): the history entry that reports a
reply's blocks to the model keeps one record per block (``Entry.blocks``), so an export never
depends on the wording the model was given. Conversations saved before records existed are read by
interp.storage.legacy. Blocks are numbered as in the session (``▶ python block 3``; a notebook
cell's execution count is its block number).

Fenced blocks are matched with the records of the report that follows the reply, in order;
``execute`` tool calls with the record of their ``tool`` message. Declined, refused or
unanswered blocks are kept as notes, never as code.

Figures: Markdown links each as ``![figure](path)``; the notebook embeds it as ``image/png``
``display_data`` when the file exists. Notebook cells: python blocks become code cells; shell
blocks ``%%bash`` cells; javascript (and any other language) cannot run in a Python kernel, so it
becomes a markdown cell with the code and its output. Output is one ``stdout`` stream, as interp
captured it (stdout and stderr merged, the value of a trailing expression included); a block that
did not end ``ok`` gets a ``stderr`` stream with its result line.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

from interp.core.blocks import BlockRecord, not_run
from interp.core.replies.fences import fence, parse_blocks
from interp.core.history import Entry
from interp.core.prompt.png import is_png
from interp.core.replies.report import missing_package_hint
from interp.core.replies.steps import shown_only
from interp.storage.entries import to_saved
from interp.storage.legacy import legacy_record, split_report

FORMATS = {".md": "markdown", ".markdown": "markdown", ".ipynb": "notebook", ".json": "json"}


class ExportError(Exception):
    """A conversation cannot be exported (unknown format, unwritable path)."""


def export_json(messages: list[Entry]) -> str:
    """The entries as an indented JSON array in their saved form (every fact kept, so it loads
    back the same)."""
    return json.dumps([to_saved(m) for m in messages], ensure_ascii=False, indent=2) + "\n"


def export_markdown(messages: list[Entry], *, title: str | None = None) -> str:
    """A readable Markdown transcript: tasks, prose, code, outputs and figure links."""
    parts, last = [f"# {title or 'interp conversation'}"], "task"
    for kind, item in conversation_items(messages):
        if kind != "task" and last == "task":
            parts.append("## Assistant")
        last = kind
        if kind == "task":
            parts.append(f"## User\n\n{item}")
        elif kind == "prose":
            parts.append(item)
        else:
            parts.append(_block_markdown(item))
    return "\n\n".join(p.strip("\n") for p in parts if p.strip()) + "\n"


def export_notebook(messages: list[Entry], *, title: str | None = None) -> dict:
    """An nbformat v4.5 notebook: markdown cells for prose, code cells for blocks that ran."""
    cells: list[dict] = []
    if title:
        cells.append(_markdown_cell(f"# {title}"))
    for kind, item in conversation_items(messages):
        if kind == "task":
            cells.append(_markdown_cell(f"**User:**\n\n{item}"))
        elif kind == "prose":
            cells.append(_markdown_cell(item))
        elif item.ran and item.language in ("python", "shell"):
            cells.append(_code_cell(item))
        else:
            cells.append(_markdown_cell(_block_markdown(item)))
    for number, cell in enumerate(cells, 1):
        cell["id"] = f"cell-{number}"
    return {"nbformat": 4, "nbformat_minor": 5, "cells": cells,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                        "language": "python"},
                         "language_info": {"name": "python"}}}


EXTENSIONS = {"markdown": ".md", "notebook": ".ipynb", "json": ".json"}


def export_format(fmt: str | None, path: Path | str | None = None) -> str:
    """"markdown", "notebook" or "json" for a format name (md, ipynb, ...) or, without one, for
    the suffix of `path`; raises ExportError for anything else."""
    suffix = Path(path).suffix.lower() if path is not None else ""
    name = (fmt or FORMATS.get(suffix, "")).lower()
    name = {"md": "markdown", "ipynb": "notebook", "jupyter": "notebook"}.get(name, name)
    if name not in EXTENSIONS:
        what = f"format {fmt!r}" if fmt else f"file type {suffix or str(path)!r}"
        raise ExportError(f"Unknown export {what}; use .md, .ipynb or .json "
                          f"(or markdown, notebook, json).")
    return name


def render_export(messages: list[Entry], fmt: str, *, title: str | None = None) -> str:
    """The text of an export in `fmt` (see export_format), ending with a newline."""
    name = export_format(fmt)
    if name == "markdown":
        text = export_markdown(messages, title=title)
    elif name == "notebook":
        text = json.dumps(export_notebook(messages, title=title), ensure_ascii=False, indent=1)
    else:
        text = export_json(messages)
    return text if text.endswith("\n") else text + "\n"


def write_export(messages: list[Entry], path: Path | str, fmt: str | None = None, *,
                 title: str | None = None) -> str:
    """Write an export to `path` in `fmt` (else chosen by suffix); returns the format used."""
    path = Path(path)
    name = export_format(fmt, path)
    text = render_export(messages, name, title=title)
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ExportError(f"Cannot write {path}: {exc.strerror or exc}") from exc
    return name


# -- reading the history ----------------------------------------------------------------------
def conversation_items(messages: list[Entry]) -> list[tuple[str, object]]:
    """The conversation as ("task", str), ("prose", str) and ("block", BlockRecord) items."""
    items: list[tuple[str, object]] = []
    numbers = _Numbers()
    for i, message in enumerate(messages):
        role, text = message.role, _text(message.content)
        if message.compaction is not None:  # the summary the model got: the history is here
            continue
        if role == "user" and not _is_report(message):
            items.append(("task", text))
        elif role == "assistant":
            report, calls = _answers_after(messages, i)
            if message.tool_calls:
                items += [("prose", text)] if text.strip() else []
                items += [("block", _call_block(c, calls.get(c.get("id")), numbers))
                          for c in message.tool_calls]
            else:
                items += _fenced_items(text, report, numbers)
    return items


class _Numbers:
    """Block numbers: a record's own, else one more than the last (older sessions)."""

    def __init__(self) -> None:
        self.last = 0

    def take(self, record: BlockRecord | None = None) -> int:
        self.last = record.index if record is not None else self.last + 1
        return self.last


def _answers_after(messages: list[Entry], i: int) -> tuple[Entry | None, dict[str, Entry]]:
    """The report entry of entry i's fenced blocks, and its tool results by call id."""
    report: Entry | None = None
    calls: dict[str, Entry] = {}
    for message in messages[i + 1:]:
        role = message.role
        if role == "tool":
            calls[message.message.get("tool_call_id")] = message
        elif role == "user" and _is_report(message):
            report = report or message
        elif role in ("assistant", "user") and message.compaction is None:
            break
    return report, calls


def _is_report(message: Entry) -> bool:
    return message.output or _text(message.content).startswith("[Block 1, ")


def _fenced_items(text: str, report: Entry | None,
                  numbers: _Numbers) -> list[tuple[str, object]]:
    records = report.blocks if report is not None else None
    legacy = split_report(_text(report.content)) if report and records is None else {}
    items: list[tuple[str, object]] = []
    pos, k = 0, 0
    for found in parse_blocks(text):
        if shown_only(found):
            continue
        if text[pos:found.start].strip():
            items.append(("prose", text[pos:found.start]))
        if records is not None and k < len(records):
            record = records[k]
            numbers.take(record)
        else:
            language, answer = legacy.get(k + 1, (found.language, None))
            record = legacy_record(numbers.take(), language, found.code, answer)
        items.append(("block", record))
        pos, k = found.end, k + 1
    if text[pos:].strip():
        items.append(("prose", text[pos:]))
    return items


def _call_block(call: dict, answer: Entry | None, numbers: _Numbers) -> BlockRecord:
    records = answer.blocks if answer is not None else None
    if records:
        numbers.take(records[0])
        return records[0]
    arguments = (call.get("function") or {}).get("arguments") or "{}"
    try:
        args = json.loads(arguments)
    except ValueError:
        args = None
    text = _text(answer.content) if answer is not None else None
    if not isinstance(args, dict) or not isinstance(args.get("code"), str):
        return not_run(numbers.take(), "", str(arguments), "skipped", text)
    return legacy_record(numbers.take(), str(args.get("language") or "python"), args["code"],
                         text, call.get("id"))


def _text(content: object) -> str:
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""


# -- rendering --------------------------------------------------------------------------------
def _output(block: BlockRecord) -> str:
    """The bounded output and the text of each table, as the block showed them."""
    parts = [block.output_text().rstrip("\n")] + [t.text.rstrip("\n") for t in block.tables]
    return "\n".join(p for p in parts if p)


def _why_not_run(block: BlockRecord) -> str:
    if block.declined or block.denied:
        who = "denied by policy" if block.denied else "declined by the user"
        return f"{who}" + (f" ({block.reason})" if block.reason else "")
    return block.reason or "No result was recorded for this block."


def _notes(block: BlockRecord) -> list[str]:
    """The lines after a block's output: the files it changed and an install hint."""
    notes = [block.files.text] if block.files is not None and block.files.text else []
    if block.language == "python" and block.status != "ok":
        if hint := missing_package_hint(block.output_text(), block.python):
            notes.append(hint)
    return notes


def _block_markdown(block: BlockRecord) -> str:
    tag = {"shell": "bash"}.get(block.language, block.language)
    parts = [f"*▶ {block.language or 'untagged'} block {block.index}*", fence(block.code, tag)]
    if not block.ran:
        parts.append(f"*Not run: {_why_not_run(block)}*")
        return "\n\n".join(parts)
    if block.edited:
        parts.insert(1, "*The user edited this code before it ran:*")
    if output := _output(block):
        parts.append("Output:\n\n" + fence(output))
    parts += [f"*{line}*" for note in _notes(block) for line in note.splitlines() if line.strip()]
    parts.append(f"*Result: {block.result}.*")
    parts += [f"![figure]({path})" for path in block.figures]
    return "\n\n".join(parts)


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _markdown_cell(text: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": _lines(text.strip("\n"))}


def _code_cell(block: BlockRecord) -> dict:
    source = block.code if block.language == "python" else "%%bash\n" + block.code
    outputs: list[dict] = []
    if text := block.output_text():
        outputs.append({"output_type": "stream", "name": "stdout",
                        "text": _lines(text if text.endswith("\n") else text + "\n")})
    for table in block.tables:
        outputs.append({"output_type": "display_data", "metadata": {},
                        "data": {"text/plain": _lines(table.text)}})
    for path in block.figures:
        image = _png_base64(path)
        data = ({"image/png": image, "text/plain": [f"<figure {path}>"]} if image is not None
                else {"text/plain": [f"<figure {path} (missing)>"]})
        outputs.append({"output_type": "display_data", "metadata": {}, "data": data})
    if block.status != "ok":
        outputs.append({"output_type": "stream", "name": "stderr",
                        "text": [f"Result: {block.summary}.\n"]})
    return {"cell_type": "code", "execution_count": block.index,
            "metadata": {"interp": {"block": block.index, "status": block.status}},
            "source": _lines(source), "outputs": outputs}


def _png_base64(path: str) -> str | None:
    try:
        data = Path(path).expanduser().read_bytes()
    except (OSError, ValueError):
        return None
    return base64.b64encode(data).decode("ascii") if is_png(data) else None
