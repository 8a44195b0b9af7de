"""Set a few keys of one TOML table in a file, keeping every other byte of the file.

The standard library reads TOML but cannot write it, so this edits the text: values may
span lines (a statement ends at the first line where it parses on its own), and the result
is parsed back and compared with what was intended before the file is replaced.
"""

from __future__ import annotations

import json
import os
import re
import stat
import tempfile
import tomllib
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

_KEY = re.compile(r"""\s*([A-Za-z0-9_-]+|"[^"]*"|'[^']*')\s*=""")
_HEADER = re.compile(r"\s*\[([^\[\]]*)\]\s*(#.*)?$")


class TomlEditError(ValueError):
    """The file cannot be read, parsed or safely updated; the message names it."""


def toml_string(text: str) -> str:
    """`text` as a TOML basic string (JSON's escapes are TOML's, plus DEL)."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def parses(text: str) -> bool:
    """Whether `text` is valid TOML."""
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return False
    return True


def _statements(lines: list[str]) -> list[tuple[int, int, str | None, str | None]]:
    """Split TOML lines into (start, end, table header, key) statements."""
    out: list[tuple[int, int, str | None, str | None]] = []
    i = 0
    while i < len(lines):
        header, key = _HEADER.match(lines[i]), _KEY.match(lines[i])
        end = i + 1
        if key and not header:
            while end < len(lines) and not parses("".join(lines[i:end])):
                end += 1
        name = header.group(1).strip().strip("\"'") if header else None
        out.append((i, end, name, key.group(1).strip("\"'") if key and not header else None))
        i = end
    return out


def replace_table_keys(text: str, table: str, keys: Collection[str], body: str) -> str:
    """`text` with `keys` of `[table]` replaced by `body` (where the first was), or `[table]` appended."""
    newline = "\r\n" if "\r\n" in text else "\n"
    body = body.replace("\r\n", "\n").replace("\n", newline)
    lines = [line for line in re.split(r"(?<=\n)", text) if line]
    stmts = _statements(lines)
    start = next((k for k, stmt in enumerate(stmts) if stmt[2] == table), None)
    if start is None:
        sep = "" if not text else newline if text.endswith("\n") else newline * 2
        return f"{text}{sep}[{table}]{newline}{body}"
    section = []
    for stmt in stmts[start + 1:]:
        if stmt[2] is not None or (stmt[3] is None and lines[stmt[0]].lstrip().startswith("[")):
            break
        section.append(stmt)
    managed = [stmt for stmt in section if stmt[3] in keys]
    at = managed[0][0] if managed else stmts[start][1]
    drop = {i for stmt in managed for i in range(stmt[0], stmt[1])}
    if at > 0 and not lines[at - 1].endswith("\n"):
        lines[at - 1] += newline
    head = "".join(line for i, line in enumerate(lines[:at]) if i not in drop)
    tail = "".join(line for i, line in enumerate(lines) if i >= at and i not in drop)
    return head + body + tail


def render(values: Mapping[str, str | list[str]]) -> str:
    """`key = value` lines for string and list-of-string values (lists one item a line)."""
    lines = []
    for key, value in values.items():
        if isinstance(value, str):
            lines.append(f"{key} = {toml_string(value)}")
        else:
            items = "".join(f"\n    {toml_string(item)}," for item in value)
            lines.append(f"{key} = [{items}\n]" if items else f"{key} = []")
    return "\n".join(lines) + "\n"


def read_toml(path: Path | str) -> dict[str, Any]:
    """The parsed file; a missing file is empty."""
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise TomlEditError(f"{path}: cannot read config file: {exc.strerror or exc}") from None
    except ValueError as exc:  # TOMLDecodeError and UnicodeDecodeError
        raise TomlEditError(f"{path}: invalid TOML: {exc}") from None


def update_table(path: Path | str, table: str, values: Mapping[str, str | list[str]]) -> None:
    """Set `values` in `[table]` of the file at `path` (created if missing), atomically."""
    path = Path(os.path.realpath(path))
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            text = fh.read()
    except FileNotFoundError:
        text = ""
    except (OSError, ValueError) as exc:
        raise TomlEditError(f"{path}: cannot read config file: {exc}") from None
    if not parses(text):
        raise TomlEditError(f"{path}: invalid TOML; not changing it")
    new_text = replace_table_keys(text, table, values.keys(), render(values))
    expected = tomllib.loads(text)
    if isinstance(expected.get(table, {}), dict):
        expected[table] = {**expected.get(table, {}), **values}
    if not parses(new_text) or tomllib.loads(new_text) != expected:
        raise TomlEditError(f"{path}: cannot update the [{table}] table safely "
                            f"(is it an inline or dotted table?); edit it by hand")
    _write(path, new_text)


def _write(path: Path, text: str) -> None:
    """Replace the file atomically, keeping its permissions."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        if path.exists():
            os.chmod(tmp, stat.S_IMODE(path.stat().st_mode))
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise TomlEditError(f"{path}: cannot write config file: {exc.strerror or exc}") from None
