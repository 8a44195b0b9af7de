"""interp's exit statuses, declared in interp/core/exits.py, and the exit-status table of
docs/scripting.md say the same: every status, once."""

from __future__ import annotations

import re

import pytest

from docs_kit import DOCS, section

from interp.core import exits

pytestmark = pytest.mark.fast  # reads docs/scripting.md only


def documented() -> list[int]:
    """The statuses in the first column of the table under docs/scripting.md's "Exit statuses"."""
    rows = re.findall(r"^\| (\d+) \|", section(DOCS / "scripting.md", "Exit statuses"), re.M)
    return [int(status) for status in rows]


def declared() -> dict[int, str]:
    """The statuses exits.py names (its upper-case int constants), by status."""
    return {value: name for name, value in vars(exits).items()
            if name.isupper() and isinstance(value, int)}


def test_the_table_lists_every_declared_status_once_and_no_other():
    listed = documented()
    assert len(listed) == len(set(listed)), listed
    assert set(listed) == set(declared())


def test_each_status_is_declared_once():
    names = [name for name, value in vars(exits).items()
             if name.isupper() and isinstance(value, int)]
    assert len(names) == len(declared()), names
