"""The settings' declarations: the options table of docs/configuration.md lists every flag,
variable and config.toml key they declare, and nothing else."""

from __future__ import annotations

import re

import pytest
import typer.main

from docs_kit import DOCS, section

from interp.cli.main import app
from interp.config.options import BY_NAME, OPTIONS

pytestmark = pytest.mark.fast  # reads docs/configuration.md only

PAGE = DOCS / "configuration.md"


def options_table(text: str) -> list[tuple[list[str], list[str], list[str]]]:
    """(flags, variables, config.toml keys) of each row of a table of four columns: flag,
    environment, config.toml, meaning."""
    rows = []
    for line in text.splitlines():
        cells = re.split(r"(?<!\\)\|", line)
        if not line.startswith("| ") or len(cells) < 5:
            continue
        rows.append((re.findall(r"`(--?[a-z][a-z-]*)", cells[1]),
                     re.findall(r"\bINTERP_[A-Z_]+\b", cells[2]),
                     re.findall(r"`([a-z_]+)(?: = [^`]*)?`", cells[3])))
    return rows


def table() -> list[tuple[list[str], list[str], list[str]]]:
    """The rows of the table under docs/configuration.md's "Options"."""
    rows = options_table(section(PAGE, "Options"))
    assert rows, "docs/configuration.md's Options section has no table"
    return rows


def command_flags() -> set[str]:
    """Every option of the `interp` command itself (its subcommands have rows of their own)."""
    command = typer.main.get_command(app)
    return {name for param in command.params for name in param.opts + param.secondary_opts
            if name not in ("-h", "--help")}


def by_flag() -> dict[str, str]:
    return {name: option.name for option in OPTIONS for flag in option.flags
            for name in flag.names}


def test_the_table_lists_every_flag_of_interp_and_no_other():
    listed = {flag for flags, _, _ in table() for flag in flags}
    assert listed == command_flags()
    assert set(by_flag()) <= listed


def test_the_table_lists_every_setting_variable_and_no_other():
    listed = {var for _, variables, _ in table() for var in variables}
    assert listed == {option.env for option in OPTIONS}


def test_the_table_lists_every_config_file_key_and_no_other():
    listed = {key for _, _, keys in table() for key in keys}
    assert listed == {option.name for option in OPTIONS if option.file}


def test_a_settings_flag_its_variable_and_its_key_share_a_row():
    owner = by_flag()
    for flags, variables, keys in table():
        for flag in flags:
            if flag in owner:
                option = BY_NAME[owner[flag]]
                assert option.env in variables, (flag, variables)
                assert not option.file or option.name in keys, (flag, keys)

