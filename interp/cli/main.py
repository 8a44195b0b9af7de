"""The `interp` command: parses flags and hands them to the app."""

from __future__ import annotations

import gc
import sys
from typing import Optional

import typer

from interp import __version__
from interp.cli.flags import VALUE_FLAGS, settings_flags
from interp.core import exits

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None, context_settings={"help_option_names": ["-h", "--help"]},
                  help="A local terminal agent: a model proposes code, you approve it, it runs.")


SETTINGS: dict = {}  # where a command's settings flags stand (see interp.cli.flags)
ACP_HELP = {"auto_approve": "Start sessions in the auto mode: blocks no rule stops run without "
                            "asking."}
MCP_HELP = {"auto_approve": "Run blocks no rule stops without asking.",
            "pass_env": "Let runners see this variable even if it holds a model key "
                        "(repeatable)."}


def _version(value: bool) -> None:
    if value:
        typer.echo(f"interp {__version__}")
        raise typer.Exit()


@app.callback(invoke_without_command=True)
@settings_flags()
def main_command(
    ctx: typer.Context,
    exec_: Optional[str] = typer.Option(None, "-e", "--exec", help="Run one task and exit."),
    cli: dict = SETTINGS,
    resume: Optional[str] = typer.Option(None, "--resume", metavar="[ID]",
                                         help="Continue a saved conversation: bare --resume "
                                         "the latest started in this directory."),
    file: Optional[list[str]] = typer.Option(None, "--file", metavar="PATH",
                                             help="Attach a file: the model is told its path, "
                                             "size, type and a preview (repeatable)."),
    output_schema: Optional[str] = typer.Option(None, "--output-schema", metavar="FILE",
                                                help="With -e: the final answer is JSON valid "
                                                "against this JSON Schema, printed alone."),
    output_file: Optional[str] = typer.Option(None, "--output-file", metavar="PATH",
                                              help="With -e: write the final answer to PATH "
                                              "too."),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Print the version."),
) -> None:
    """Start an interactive session, or run one task with -e."""
    if ctx.invoked_subcommand is not None:
        return
    cli = _with_local(cli, "interp")
    from interp.cli.start import start

    answer = None
    if output_schema is not None or output_file is not None:
        from interp.cli.answer import Answer

        answer = Answer(output_schema, output_file)
    raise typer.Exit(start(cli, exec_, resume, tuple(file or ()), answer))


@app.command()
def sessions(every: bool = typer.Option(False, "--all", "-a",
                                         help="List conversations from every directory.")) -> None:
    """List the conversations started in this directory (--all: every directory), newest first."""
    from interp.cli.subcommands import list_sessions

    raise typer.Exit(list_sessions(every))


@app.command("export")
def export_command(
    session_id: str = typer.Argument(..., metavar="ID",
                                     help="A saved conversation: its id, a unique prefix, "
                                     "or latest (the latest started in this directory)."),
    format_: Optional[str] = typer.Option(None, "--format", "-f", metavar="md|ipynb|json",
                                          help="Output format (default: from -o's suffix, "
                                          "else md)."),
    output: Optional[str] = typer.Option(None, "-o", "--output", metavar="PATH",
                                         help="Where to write (default interp-ID.EXT; - for "
                                         "standard output)."),
) -> None:
    """Export a saved conversation as Markdown, a Jupyter notebook or JSON."""
    from interp.cli.subcommands import export_session

    raise typer.Exit(export_session(session_id, format_, output))


@app.command("rewind")
def rewind_command(
    session_id: Optional[str] = typer.Argument(None, metavar="[ID]",
                                               help="A saved conversation: its id or a unique "
                                               "prefix (default: the latest started here)."),
    to: Optional[int] = typer.Option(None, "--to", metavar="N",
                                     help="Put the folder back as it was before block N."),
    list_: bool = typer.Option(False, "--list", help="List the blocks and the files each "
                               "changed (the default)."),
    diff: Optional[int] = typer.Option(None, "--diff", metavar="N",
                                       help="Show what block N changed."),
    undo: bool = typer.Option(False, "--undo", help="Undo the last rewind."),
    conversation: bool = typer.Option(False, "--conversation",
                                      help="With --to: drop block N's reply and what came "
                                      "after from the conversation too."),
    force: bool = typer.Option(False, "--force", help="Put back files changed outside "
                               "interp since the checkpoint too (else refused)."),
) -> None:
    """List, diff or undo what a conversation's blocks did to the working folder."""
    from interp.cli.rewind import RewindArgs, rewind_cli

    raise typer.Exit(rewind_cli(RewindArgs(session_id, to, list_, diff, undo, conversation,
                                           force)))


@app.command("eval")
@settings_flags("model", "local_model", "api_base", "api_key", "checks", "max_turns",
                "max_tokens", command="eval", help={
                    "local_model": "Score a GGUF model run here by llama.cpp (default: the "
                                   "downloaded one); needs interp[local].",
                    "max_turns": "self, oracle (each round), tasks and dabench: model calls per "
                                 "problem (default: 4 for self and oracle, 8 for tasks and "
                                 "dabench).",
                    "max_tokens": "Most tokens per reply (default {default})."})
def eval_command(
    benchmark: str = typer.Argument(..., metavar="BENCHMARK",
                                    help="tasks (interp's own benchmark), dabench, "
                                    "humaneval, humaneval+, mbpp or mbpp+."),
    cli: dict = SETTINGS,
    feedback: Optional[list[str]] = typer.Option(None, "--feedback", metavar="none|self|oracle|oci",
                                                 help="Modes, comma-separated or repeated "
                                                 "(default none)."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Only the first N problems."),
    jobs: int = typer.Option(1, "--jobs", help="Problems worked on at once."),
    out: Optional[str] = typer.Option(None, "--out", metavar="DIR",
                                      help="Results folder (default ./interp-eval/MODEL)."),
    json_: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
    data: Optional[str] = typer.Option(None, "--data", metavar="PATH",
                                       help="Problems in the EvalPlus JSONL format; dabench: "
                                       "the folder of InfiAgent-DABench's files."),
    ids: Optional[list[str]] = typer.Option(None, "--ids", metavar="ID,...",
                                            help="tasks, dabench: only these items."),
    level: Optional[list[str]] = typer.Option(None, "--level", metavar="easy|medium|hard",
                                              help="dabench: only questions of these levels."),
    temperature: float = typer.Option(0.0, "--temperature", help="Sampling temperature."),
) -> None:
    """Score a model on a code benchmark, with and without execution feedback."""
    from interp.eval.command import EvalArgs, run_eval_command

    args = EvalArgs(benchmark=benchmark.lower(), feedback=tuple(feedback or ()), limit=limit,
                    jobs=jobs, out=out, json=json_, data=data, temperature=temperature,
                    ids=_listed(ids), levels=_listed(level, lower=True))
    raise typer.Exit(run_eval_command(args, _with_local(cli, "interp eval")))


def _listed(values: list[str] | None, lower: bool = False) -> tuple[str, ...]:
    """Repeated and comma-separated values, in order, once each."""
    found: list[str] = []
    for value in values or ():
        for part in value.split(","):
            part = part.strip().lower() if lower else part.strip()
            if part and part not in found:
                found.append(part)
    return tuple(found)


@app.command("mcp")
@settings_flags("auto_approve", "timeout", "sandbox", "network", "pass_env", "python",
                  "output_dir", "runners", "gateway_url", "checkpoints", "debug", help=MCP_HELP)
def mcp_command(
    http: bool = typer.Option(False, "--http", help="Serve Streamable HTTP on 127.0.0.1 with a "
                              "bearer token (default: stdio)."),
    port: int = typer.Option(8765, "--port", help="--http: the port (0: any free one)."),
    cli: dict = SETTINGS,
    cwd: Optional[str] = typer.Option(None, "--cwd", metavar="DIR",
                                      help="Run blocks in DIR (default: where it starts)."),
    session_timeout: float = typer.Option(1800.0, "--session-timeout", metavar="SECONDS",
                                          help="--http: end a session idle this long."),
) -> None:
    """Serve interp's runners to MCP clients (Claude Desktop, Claude Code, Codex, ...)."""
    from interp.cli.mcp_command import McpArgs, run_mcp

    raise typer.Exit(run_mcp(McpArgs(http=http, port=port, session_timeout=session_timeout,
                                     cwd=cwd), cli))


@app.command("acp")
@settings_flags("model", "local_model", "api_base", "auto_approve", "max_turns", "timeout",
                "tools", "sandbox", "network", "pass_env", "python", "output_dir", "runners",
                "gateway_url", "checkpoints", "instructions", "skills", "checks", "debug",
                help=ACP_HELP)
def acp_command(cli: dict = SETTINGS) -> None:
    """Be the agent of an editor (Zed, JetBrains IDEs, Neovim) over the Agent Client Protocol,
    on standard input and output."""
    from interp.cli.acp_command import run_acp

    raise typer.Exit(run_acp(_with_local(cli, "interp acp")))


rules_app = typer.Typer(add_completion=False, pretty_exceptions_enable=False,
                        rich_markup_mode=None, context_settings={"help_option_names": ["-h", "--help"]},
                        help="List, add or remove the approval rules in config.toml.")
app.add_typer(rules_app, name="rules")


@rules_app.callback(invoke_without_command=True)
def rules_command(ctx: typer.Context) -> None:
    """List the approval rules in config.toml (with no subcommand)."""
    if ctx.invoked_subcommand is None:
        from interp.cli.subcommands import rules_cli

        raise typer.Exit(rules_cli("list"))


@rules_app.command("list")
def rules_list() -> None:
    """List the approval rules, numbered."""
    from interp.cli.subcommands import rules_cli

    raise typer.Exit(rules_cli("list"))


@rules_app.command("add")
def rules_add(kind: str = typer.Argument(..., metavar="allow|ask|deny"),
              entry: list[str] = typer.Argument(..., metavar="ENTRY",
                                                help="LANGUAGE or 'LANGUAGE: PATTERN'")) -> None:
    """Add a rule to config.toml (ENTRY: LANGUAGE or 'LANGUAGE: PATTERN')."""
    from interp.cli.subcommands import rules_cli

    raise typer.Exit(rules_cli("add", kind.lower(), " ".join(entry)))


@rules_app.command("remove")
def rules_remove(entry: list[str] = typer.Argument(..., metavar="ENTRY|NUMBER")) -> None:
    """Remove a rule, given as written or by its number in the list."""
    from interp.cli.subcommands import rules_cli

    raise typer.Exit(rules_cli("remove", entry=" ".join(entry)))


def _with_local(cli: dict, prog: str) -> dict:
    """The settings' flags with --local's: the model "local" (an empty path: the default file)."""
    model, local = cli["model"], cli["local_model"]
    if local is not None and model:
        typer.echo(f"{prog}: use --model or --local, not both", err=True)
        raise typer.Exit(exits.USAGE)
    from interp.models.base import LOCAL

    return {**cli, "model": LOCAL if local is not None else model, "local_model": local or None}


_TAKES_VALUE = VALUE_FLAGS | {"-e", "--exec", "--resume", "--file", "--format", "-f", "-o",
                              "--output", "--port", "--cwd", "--session-timeout",
                              "--output-schema", "--output-file"}


_OPTIONAL_VALUE = {"--resume": "latest", "--local": ""}


def optional_resume(args: list[str]) -> list[str]:
    """`--resume` with no ID (last, or before another option) means `--resume latest`, and
    `--local` with no path means the default model (an empty value).

    Typer's parser has no optional option values, so the default is filled in here."""
    out, i = [], 0
    while i < len(args):
        arg = args[i]
        out.append(arg)
        i += 1
        if arg == "--":
            out.extend(args[i:])
            break
        if arg in _OPTIONAL_VALUE and (i == len(args) or args[i].startswith("-")):
            out.append(_OPTIONAL_VALUE[arg])
        elif arg in _TAKES_VALUE and i < len(args):
            out.append(args[i])
            i += 1
    return out


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    from interp.cli.process import ending_signals, harden_streams

    harden_streams()
    try:
        with ending_signals():
            app(args=optional_resume(sys.argv[1:] if argv is None else list(argv)),
                prog_name="interp")
    finally:
        gc.freeze()  # skip collecting litellm's large heap at exit (about a second)


if __name__ == "__main__":
    sys.exit(main())
