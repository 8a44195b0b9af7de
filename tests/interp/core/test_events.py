"""The event dataclasses, the JSON lines `--json` prints and the event table of
docs/scripting.md ("JSON events") say the same: every type and field, in one place each."""

from __future__ import annotations

import json
import re
from dataclasses import MISSING, fields

import pytest

from docs_kit import DOCS, section

from interp.core import events as ev

pytestmark = pytest.mark.fast  # pure units: no process, pty or server (see conftest.py)

SAMPLES = {int: 3, str: "x", bool: True, float: 1.5}


def table() -> dict[str, list[str]]:
    """The event table of docs/scripting.md: each type with the fields its row names (the
    backticked names before the first top-level `;`, outside parentheses)."""
    rows = {}
    for line in section(DOCS / "scripting.md", "JSON events").splitlines():
        cells = line.split(" | ")
        if len(cells) == 2 and cells[0].startswith("| `"):
            rows[cells[0][3:-1]] = top_level_names(cells[1].rstrip(" |"))
    return rows


def top_level_names(cell: str) -> list[str]:
    names, depth = [], 0
    for quoted, plain in re.findall(r"`([^`]*)`|([^`]+)", cell):
        if quoted and depth == 0:
            names.append(quoted)
        for char in plain:
            depth += {"(": 1, ")": -1}.get(char, 0)
            if char == ";" and depth == 0:
                return names
    return names


def sample(kind: type[ev.Event]) -> ev.Event:
    """An event of this type with every field set away from its default."""
    values = {}
    for item in fields(kind):
        if item.default is not MISSING and isinstance(item.default, bool):
            values[item.name] = not item.default
        else:
            values[item.name] = f"{item.name}-value"
    return kind(**values)


def test_the_docs_list_every_printed_type_and_its_fields_and_nothing_else():
    rows = table()
    printed = {kind.type: kind for kind in ev.EVENTS if kind.json}
    assert sorted(rows) == sorted(printed)
    for name, kind in printed.items():
        assert rows[name] == [f.name for f in fields(kind)], name


def test_the_json_line_is_the_type_and_every_field_in_order():
    for kind in ev.EVENTS:
        item = sample(kind)
        line = json.loads(json.dumps(item.to_dict()))
        assert list(line) == ["type", *(f.name for f in fields(kind))]
        assert line["type"] == kind.type and ev.event(kind.type, **item.body()) == item


def test_optional_fields_are_left_out_only_while_unset():
    assert ev.Notice(level="error", text="t").to_dict() == {"type": "notice", "level": "error",
                                                           "text": "t"}
    assert ev.Notice(level="error", text="t", kind="auth").to_dict()["kind"] == "auth"
    assert "policy" not in ev.BlockDeclined(index=1, reason=None).to_dict()
    assert ev.BlockDeclined(index=1, reason="r", policy=True).to_dict() == {
        "type": "block.declined", "index": 1, "reason": "r", "policy": True}


def test_every_type_has_one_class_and_unknown_names_fail():
    assert len(ev.TYPES) == len(ev.EVENTS)
    assert ev.JSON_HIDDEN == {"message.delta"}
    with pytest.raises(ev.UnknownEvent, match="block.outptu"):
        ev.event("block.outptu", index=1, text="x")


def test_strings_are_made_encodable_and_events_are_frozen():
    item = ev.BlockOutput(index=1, text="bad \udcff byte")
    assert item.text == "bad \ufffd byte"
    with pytest.raises(AttributeError):
        item.text = "other"
