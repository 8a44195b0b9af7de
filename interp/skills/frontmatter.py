"""A SKILL.md's front matter: the block between two `---` lines at the top of the file, read
as the small part of YAML that skills use: `key: value` lines at the top level, with plain,
quoted and block (`|`, `>`) values. Nested keys (`metadata:` with indented lines under it) are
read over and left out; anything else is malformed and says where."""

from __future__ import annotations

import re

FENCE = "---"
_KEY = re.compile(r"^([A-Za-z0-9_][A-Za-z0-9_.-]*)\s*:(?:\s+(.*))?$")
_BLOCK = re.compile(r"^([|>])[+-]?\d?\s*(?:#.*)?$")


class FrontMatterError(ValueError):
    """The front matter is missing or cannot be read; the message says where."""


def front_matter(text: str) -> dict[str, str | None]:
    """The top-level values of the front matter that opens `text` (None: a key with nested
    values only). FrontMatterError when there is none, it is not closed, or a line is not
    `key: value`."""
    lines = text.lstrip("\ufeff").splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip()), None)
    if start is None or lines[start].rstrip() != FENCE:
        raise FrontMatterError("it does not start with a front matter block (a line `---`)")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].rstrip() in (FENCE, "...")),
               None)
    if end is None:
        raise FrontMatterError("its front matter is not closed by a line `---`")
    return _values(lines[start + 1:end], first_line=start + 2)


def _values(lines: list[str], first_line: int) -> dict[str, str | None]:
    values: dict[str, str | None] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip() or line.lstrip().startswith("#"):
            i += 1
            continue
        found = _KEY.match(line)
        if line[:1].isspace() or found is None:
            raise FrontMatterError(f"line {first_line + i} of its front matter is not "
                                   f"`key: value`: {line.strip()[:60]!r}")
        key, raw = found.group(1), (found.group(2) or "").strip()
        if key in values:
            raise FrontMatterError(f"its front matter gives {key!r} twice")
        block, i = _indented(lines, i + 1)
        try:
            values[key] = _value(raw, block)
        except FrontMatterError as exc:
            raise FrontMatterError(f"{key!r} in its front matter: {exc}") from None
    return values


def _indented(lines: list[str], i: int) -> tuple[list[str], int]:
    """The lines from `i` that belong to the value above them (indented, or blank between
    indented ones), and the index after them."""
    block: list[str] = []
    while i < len(lines) and (not lines[i].strip() or lines[i][:1].isspace()):
        block.append(lines[i])
        i += 1
    while block and not block[-1].strip():
        block.pop()
    return block, i


def _value(raw: str, block: list[str]) -> str | None:
    if mark := _BLOCK.match(raw):
        return _block_scalar(block, folded=mark.group(1) == ">")
    if raw[:1] in ("'", '"'):
        if block:
            raise FrontMatterError("a quoted value must end on its own line")
        return _quoted(raw)
    if not raw:
        return None if block else ""  # a nested mapping or list: not a value of its own
    if raw[:1] in ("[", "{"):
        raise FrontMatterError("lists and mappings are not text")
    words = [_plain(raw), *(_plain(line.strip()) for line in block if line.strip())]
    return " ".join(word for word in words if word)


def _plain(text: str) -> str:
    """A plain value without a trailing comment."""
    return re.sub(r"\s+#.*$", "", text).strip()


def _quoted(raw: str) -> str:
    quote = raw[0]
    end = _closing(raw, quote)
    if end is None:
        raise FrontMatterError("its quote is not closed")
    rest = raw[end + 1:].strip()
    if rest and not rest.startswith("#"):
        raise FrontMatterError(f"unexpected text after the quoted value: {rest[:30]!r}")
    body = raw[1:end]
    if quote == "'":
        return body.replace("''", "'")
    escapes = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "/": "/"}
    return re.sub(r"\\(.)", lambda m: escapes.get(m.group(1), "\\" + m.group(1)), body)


def _closing(raw: str, quote: str) -> int | None:
    i = 1
    while i < len(raw):
        if quote == '"' and raw[i] == "\\":
            i += 2
            continue
        if raw[i] == quote:
            if quote == "'" and raw[i + 1:i + 2] == "'":
                i += 2
                continue
            return i
        i += 1
    return None


def _block_scalar(block: list[str], folded: bool) -> str:
    """A `|` (lines kept) or `>` (lines joined) value, its indentation taken off (a chomping
    indicator is accepted; the value never ends with a line break)."""
    indent = min((len(line) - len(line.lstrip()) for line in block if line.strip()), default=0)
    lines = [line[indent:] for line in block]
    if not folded:
        text = "\n".join(lines)
    else:
        paragraphs, current = [], []
        for line in lines:
            if line.strip():
                current.append(line.strip())
            elif current:
                paragraphs.append(" ".join(current))
                current = []
        paragraphs += [" ".join(current)] if current else []
        text = "\n".join(paragraphs)
    return text.rstrip("\n")
