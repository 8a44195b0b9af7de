"""Exporting a conversation as Markdown, a Jupyter notebook (nbformat v4) or JSON.

Both ways the loop records blocks are understood: fenced blocks in the assistant's text, answered
by one ``user`` message with ``_output: True`` ("[Block N, python]\\n..." per block), and
``execute`` tool calls answered by ``tool`` messages. A block *ran* if its report ends with a
``Result: ...`` line; declined, refused or unanswered blocks are kept as notes, never as code.

Figures: any ``*.png`` path in a block's output (for example ``[figure saved: /tmp/fig-1.png]``)
is a figure. Markdown links it as ``![figure](path)``; the notebook embeds it as ``image/png``
``display_data`` when the file exists, else mentions the path in a markdown cell.

Notebook cells: python blocks become code cells; shell blocks become ``%%bash`` code cells;
javascript (and any other language) cannot run in a Python kernel, so it becomes a markdown cell
with the code and its output. Output is stored as one ``stdout`` stream, as interp captured it
(stdout and stderr merged, the value of a trailing expression included); a block that did not end
``ok`` gets a ``stderr`` stream with its result line.
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from interp.core.steps import DISPLAY_ONLY
from interp.core.fences import parse_blocks

FORMATS = {".md": "markdown", ".markdown": "markdown", ".ipynb": "notebook", ".json": "json"}
_ALIASES = {"py": "python", "python3": "python", "bash": "shell", "sh": "shell", "zsh": "shell",
            "js": "javascript", "node": "javascript", "nodejs": "javascript"}
_HEADER = re.compile(r"\[Block (\d+), ([^\]\n]*)\]\n")
_RESULT = re.compile(r"(?:\A|\n)Result: ([^\n]*?)\.?\s*\Z")
_EDITED = re.compile(r"\AThe user edited the code before running it\. The code that ran:\n"
                     r"(`{3,})[^\n]*\n(.*?)\n\1\n", re.S)
_OUTPUT = re.compile(r"(`{3,})\n(.*)\n\1(?=\n|\Z)", re.S)
_PNG = re.compile(r"(?<![\w/.~-])((?:[A-Za-z]:[\\/]|~?/|\.{1,2}/)?(?:[\w.~-]+[\\/])*"
                  r"[\w.~-]*\w\.png)\b", re.I)


class ExportError(Exception):
    """A conversation cannot be exported (unknown format, unwritable path)."""


@dataclass
class Block:
    """One proposed block and what became of it."""

    language: str
    code: str
    ran: bool = False
    output: str = ""
    result: str | None = None
    note: str | None = None  # why it did not run, or that no result was recorded
    edited: bool = False  # the user changed the code before it ran; `code` is what ran
    figures: list[str] = field(default_factory=list)
    extra: str = ""  # lines between the output and the result: files changed, hints


def export_json(messages: list[dict]) -> str:
    """The messages as an indented JSON array (every key kept, so it loads back the same)."""
    return json.dumps(messages, ensure_ascii=False, indent=2) + "\n"


def export_markdown(messages: list[dict], *, title: str | None = None) -> str:
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


def export_notebook(messages: list[dict], *, title: str | None = None) -> dict:
    """An nbformat v4.5 notebook: markdown cells for prose, code cells for blocks that ran."""
    cells: list[dict] = []
    if title:
        cells.append(_markdown_cell(f"# {title}"))
    count = 0
    for kind, item in conversation_items(messages):
        if kind == "task":
            cells.append(_markdown_cell(f"**User:**\n\n{item}"))
        elif kind == "prose":
            cells.append(_markdown_cell(item))
        elif item.ran and item.language in ("python", "shell"):
            count += 1
            cells.append(_code_cell(item, count))
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


def render_export(messages: list[dict], fmt: str, *, title: str | None = None) -> str:
    """The text of an export in `fmt` (see export_format), ending with a newline."""
    name = export_format(fmt)
    if name == "markdown":
        text = export_markdown(messages, title=title)
    elif name == "notebook":
        text = json.dumps(export_notebook(messages, title=title), ensure_ascii=False, indent=1)
    else:
        text = export_json(messages)
    return text if text.endswith("\n") else text + "\n"


def write_export(messages: list[dict], path: Path | str, fmt: str | None = None, *,
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


def find_figures(text: str) -> list[str]:
    """The distinct ``*.png`` paths mentioned in an output, in order."""
    return list(dict.fromkeys(m.group(1) for m in _PNG.finditer(text)))


# -- reading the history ----------------------------------------------------------------------
def conversation_items(messages: list[dict]) -> list[tuple[str, object]]:
    """The conversation as ("task", str), ("prose", str) and ("block", Block) items."""
    items: list[tuple[str, object]] = []
    for i, message in enumerate(messages):
        role, text = message.get("role"), _text(message.get("content"))
        if role == "user" and not _is_report(message):
            items.append(("task", text))
        elif role == "assistant":
            reports, calls = _reports_after(messages, i)
            if message.get("tool_calls"):
                items += [("prose", text)] if text.strip() else []
                items += [("block", _call_block(c, calls.get(c.get("id"))))
                          for c in message["tool_calls"]]
            else:
                items += _fenced_items(text, reports)
    return items


def _reports_after(messages: list[dict], i: int) -> tuple[dict, dict]:
    """Block reports ({index: (language, text)}) and tool results ({id: text}) after message i."""
    reports: dict[int, tuple[str, str]] = {}
    calls: dict[str, str] = {}
    for message in messages[i + 1:]:
        role = message.get("role")
        if role == "tool":
            calls[message.get("tool_call_id")] = _text(message.get("content"))
        elif role == "user" and _is_report(message):
            reports.update(_split_report(_text(message.get("content"))))
        elif role in ("assistant", "user"):
            break
    return reports, calls


def _is_report(message: dict) -> bool:
    return bool(message.get("_output")) or _text(message.get("content")).startswith("[Block 1, ")


def _split_report(text: str) -> dict[int, tuple[str, str]]:
    """"[Block 1, python]\\n...\\n\\n[Block 2, shell]\\n..." as {1: ("python", ...), ...}."""
    found, index = {}, 1
    match = _HEADER.match(text)
    while match and int(match.group(1)) == index:
        following = re.compile(rf"\n\n\[Block {index + 1}, [^\]\n]*\]\n").search(text, match.end())
        end = following.start() if following else len(text)
        found[index] = (match.group(2), text[match.end():end])
        match = _HEADER.match(text, end + 2) if following else None
        index += 1
    return found


def _fenced_items(text: str, reports: dict) -> list[tuple[str, object]]:
    items: list[tuple[str, object]] = []
    pos, index = 0, 0
    for found in parse_blocks(text):
        if found.language in DISPLAY_ONLY:
            continue
        index += 1
        if text[pos:found.start].strip():
            items.append(("prose", text[pos:found.start]))
        language, report = reports.get(index, (found.language, None))
        items.append(("block", _block(language, found.code, report)))
        pos = found.end
    if text[pos:].strip():
        items.append(("prose", text[pos:]))
    return items


def _call_block(call: dict, report: str | None) -> Block:
    arguments = (call.get("function") or {}).get("arguments") or "{}"
    try:
        args = json.loads(arguments)
    except ValueError:
        args = None
    if not isinstance(args, dict) or not isinstance(args.get("code"), str):
        return _block("", str(arguments), report)
    return _block(str(args.get("language") or "python"), args["code"], report)


def _block(language: str, code: str, report: str | None) -> Block:
    """A block from its proposed code and the report the model was given, if any."""
    language = _ALIASES.get(language.strip().lower(), language.strip().lower())
    block = Block(language, code)
    if report is None:
        block.note = "No result was recorded for this block."
        return block
    result = _RESULT.search(report)
    if result is None:
        block.note = report.strip()
        return block
    edited = _EDITED.match(report)
    start = edited.end() if edited else 0
    if edited:
        block.code, block.edited = edited.group(2), True
    block.ran, block.result = True, result.group(1)
    body, rest = report[start:result.start()], ""
    if body.startswith("Output:\n"):
        body = body[len("Output:\n"):]
        fenced = _OUTPUT.match(body)
        block.output = fenced.group(2) if fenced else body.rstrip("\n")
        rest = body[fenced.end():] if fenced else ""
    elif body.startswith("No output."):
        rest = body[len("No output."):]
    block.extra = rest.strip()
    block.figures = find_figures(block.output)
    return block


def _text(content: object) -> str:
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""


# -- rendering --------------------------------------------------------------------------------
def _fence(text: str, language: str = "") -> str:
    ticks = "`" * max(3, max(map(len, re.findall(r"`+", text)), default=0) + 1)
    return f"{ticks}{language}\n{text}\n{ticks}"


def _block_markdown(block: Block) -> str:
    tag = {"shell": "bash"}.get(block.language, block.language)
    parts = [_fence(block.code, tag)]
    if not block.ran:
        parts.append(f"*Not run: {block.note}*")
        return "\n\n".join(parts)
    if block.output:
        parts.append("Output:\n\n" + _fence(block.output))
    if block.edited:
        parts.insert(0, "*The user edited this code before it ran:*")
    parts += [f"*{line}*" for line in block.extra.splitlines() if line.strip()]
    parts.append(f"*Result: {block.result}.*")
    parts += [f"![figure]({path})" for path in block.figures]
    return "\n\n".join(parts)


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _markdown_cell(text: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": _lines(text.strip("\n"))}


def _code_cell(block: Block, count: int) -> dict:
    source = block.code if block.language == "python" else "%%bash\n" + block.code
    outputs: list[dict] = []
    if block.output:
        outputs.append({"output_type": "stream", "name": "stdout",
                        "text": _lines(block.output + "\n")})
    for path in block.figures:
        image = _png_base64(path)
        if image is not None:
            outputs.append({"output_type": "display_data", "metadata": {},
                            "data": {"image/png": image, "text/plain": [f"<figure {path}>"]}})
    if block.result != "ok":
        outputs.append({"output_type": "stream", "name": "stderr",
                        "text": [f"Result: {block.result}.\n"]})
    return {"cell_type": "code", "execution_count": count, "metadata": {},
            "source": _lines(source), "outputs": outputs}


def _png_base64(path: str) -> str | None:
    try:
        data = Path(path).expanduser().read_bytes()
    except (OSError, ValueError):
        return None
    return base64.b64encode(data).decode("ascii") if data.startswith(b"\x89PNG") else None
