"""The settings' declarations: README's options table lists every flag and variable they
declare, and nothing else."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer.main

from interp.cli.main import app
from interp.config.options import BY_NAME, OPTIONS

pytestmark = pytest.mark.fast  # reads README.md only

README = Path(__file__).resolve().parents[3] / "README.md"


def options_table(text: str) -> list[tuple[list[str], list[str]]]:
    """(flags, variables) of each row of the table under README's "### Options"."""
    section = text.split("\n### Options\n", 1)[1].split("\n#", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = re.split(r"(?<!\\)\|", line)
        if not line.startswith("| ") or len(cells) < 4:
            continue
        rows.append((re.findall(r"`(--?[a-z][a-z-]*)", cells[1]),
                     re.findall(r"\bINTERP_[A-Z_]+\b", cells[2])))
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
    listed = {flag for flags, _ in options_table(README.read_text()) for flag in flags}
    assert listed == command_flags()
    assert set(by_flag()) <= listed


def test_the_table_lists_every_setting_variable_and_no_other():
    listed = {var for _, variables in options_table(README.read_text()) for var in variables}
    assert listed == {option.env for option in OPTIONS}


def test_a_settings_flag_and_its_variable_share_a_row():
    owner = by_flag()
    for flags, variables in options_table(README.read_text()):
        for flag in flags:
            if flag in owner:
                assert BY_NAME[owner[flag]].env in variables, (flag, variables)

