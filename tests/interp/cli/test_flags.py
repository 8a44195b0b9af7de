"""The settings' flags made from their declarations: values, switches, repeats and help."""

from __future__ import annotations

from typing import Optional

import pytest
import typer
from typer.testing import CliRunner

from interp.cli.flags import VALUE_FLAGS, settings_flags

pytestmark = pytest.mark.fast  # Typer in this process: no process, pty or server

SEEN: list = []


def command_with(*names: str, **helps: str) -> typer.Typer:
    app = typer.Typer()

    @app.command()
    @settings_flags(*names, help=helps)
    def run(first: Optional[str] = typer.Option(None, "--first"), cli: dict = {},
            last: bool = typer.Option(False, "--last")) -> None:
        SEEN[:] = [first, cli, last]

    return app


def invoke(app: typer.Typer, *args: str):
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return SEEN


def test_flags_not_given_are_none_and_the_command_keeps_its_own():
    app = command_with("tools", "auto_approve", "runners", "checkpoints")
    first, cli, last = invoke(app, "--first", "x", "--last")
    assert (first, last) == ("x", True)
    assert cli == {"tools": None, "auto_approve": None, "runners": None, "checkpoints": None}


def test_values_switches_and_repeats():
    app = command_with("tools", "auto_approve", "runners", "checkpoints", "max_turns")
    _, cli, _ = invoke(app, "-y", "--runner", "python=jupyter", "--runner", "r=gateway",
                       "--no-checkpoints", "--tools", "on", "--max-turns", "3")
    assert cli == {"tools": "on", "auto_approve": True, "runners": ("python=jupyter", "r=gateway"),
                   "checkpoints": False, "max_turns": 3}


def test_a_switch_wins_over_the_same_settings_value_flag():
    _, cli, _ = invoke(command_with("tools"), "--tools", "on", "--no-tools")
    assert cli == {"tools": "off"}


def test_help_lists_the_flags_where_cli_stands_with_defaults_filled_in():
    app = command_with("request_timeout", "sandbox", sandbox="Somewhere else.")
    text = CliRunner().invoke(app, ["--help"]).output
    assert text.index("--first") < text.index("--request-timeout") < text.index("--sandbox") \
        < text.index("--last")
    assert "(default 600)" in text and "Somewhere else." in text
    assert "off|workspace|read-only" in text


def test_help_gives_the_default_a_subcommand_has():
    """A setting whose default differs for a subcommand (`interp eval`: 1024 tokens a reply)
    shows that default in the subcommand's help, not the session's."""
    app = typer.Typer()

    @app.command()
    @settings_flags("max_tokens", command="eval")
    def run(cli: dict = {}) -> None:
        pass

    text = " ".join(CliRunner().invoke(app, ["--help"]).output.split())
    assert "(default 1024; 0: no cap)" in text and "8192" not in text


def test_value_flags_are_those_followed_by_a_value():
    assert {"--model", "--local", "--runner", "--tools", "--pass-env"} <= VALUE_FLAGS
    assert not {"-y", "--no-tools", "--json", "--no-checkpoints", "--debug"} & VALUE_FLAGS
