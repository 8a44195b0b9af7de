"""The `interp` command: parses flags and hands them to the app."""

from __future__ import annotations

import gc
import sys
from typing import Optional

import typer

from interp import __version__
from interp.core import exits

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None, context_settings={"help_option_names": ["-h", "--help"]},
                  help="A local terminal agent: a model proposes code, you approve it, it runs.")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"interp {__version__}")
        raise typer.Exit()


@app.callback(invoke_without_command=True)
def main_command(
    ctx: typer.Context,
    exec_: Optional[str] = typer.Option(None, "-e", "--exec", help="Run one task and exit."),
    auto_approve: bool = typer.Option(False, "-y", "--auto-approve",
                                                help="Run blocks without asking."),
    model: Optional[str] = typer.Option(None, "--model", help="Any litellm model string."),
    local: Optional[str] = typer.Option(None, "--local", metavar="[PATH.gguf]",
                                        help="Run a GGUF model on this machine with llama.cpp "
                                        "(default: the downloaded Qwen2.5-Coder-1.5B); needs "
                                        "interp[local]."),
    api_base: Optional[str] = typer.Option(None, "--api-base", help="Model endpoint URL."),
    api_key: Optional[str] = typer.Option(None, "--api-key", help="Model API key."),
    max_turns: Optional[int] = typer.Option(None, "--max-turns", help="Model calls per task."),
    timeout: Optional[float] = typer.Option(None, "--timeout", help="Per-block limit in seconds."),
    json_: bool = typer.Option(False, "--json", help="JSON Lines events on stdout."),
    resume: Optional[str] = typer.Option(None, "--resume", metavar="[ID]",
                                         help="Continue a saved conversation: bare --resume "
                                         "the latest started in this directory."),
    tools: Optional[str] = typer.Option(None, "--tools", metavar="auto|on|off",
                                        help="Offer the model the execute tool: auto (if "
                                        "litellm knows it supports tools; default), on, or "
                                        "off (fenced code blocks only)."),
    no_tools: bool = typer.Option(False, "--no-tools", help="The same as --tools off."),
    request_timeout: Optional[float] = typer.Option(
        None, "--request-timeout", metavar="SECONDS",
        help="Longest wait for the model's first token (default 600)."),
    idle_timeout: Optional[float] = typer.Option(
        None, "--idle-timeout", metavar="SECONDS",
        help="Longest wait between two tokens of a reply (default 120)."),
    max_tokens: Optional[int] = typer.Option(None, "--max-tokens", metavar="N",
                                             help="Cap on the length of a reply in tokens "
                                             "(default 8192; 0: no cap)."),
    sandbox: Optional[str] = typer.Option(None, "--sandbox", metavar="off|workspace|read-only",
                                          help="Run code inside bubblewrap (Linux)."),
    network: bool = typer.Option(False, "--network", help="Allow network access in the sandbox."),
    pass_env: Optional[list[str]] = typer.Option(None, "--pass-env", metavar="NAME",
                                                 help="Let runners see this variable even if it "
                                                 "holds the model's key (repeatable)."),
    python: Optional[str] = typer.Option(None, "--python", metavar="PATH",
                                         help="Python interpreter for python blocks "
                                         "(default: python3 on PATH)."),
    output_dir: Optional[str] = typer.Option(None, "--output-dir", metavar="PATH",
                                             help="Folder for saved figures "
                                             "(default ./interp-output)."),
    runner: Optional[list[str]] = typer.Option(None, "--runner", metavar="LANG=RUNNER",
                                               help="Where LANG's blocks run: builtin, "
                                               "jupyter[:KERNEL] (a local kernel) or "
                                               "gateway[:KERNEL] (repeatable)."),
    gateway_url: Optional[str] = typer.Option(None, "--gateway-url", metavar="URL",
                                              help="Jupyter gateway for LANG=gateway runners "
                                              "(token in $INTERP_GATEWAY_TOKEN)."),
    file: Optional[list[str]] = typer.Option(None, "--file", metavar="PATH",
                                             help="Attach a file: the model is told its path, "
                                             "size, type and a preview (repeatable)."),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks."),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Print the version."),
) -> None:
    """Start an interactive session, or run one task with -e."""
    if ctx.invoked_subcommand is not None:
        return
    model = _model_or_local(model, local, "interp")
    cli = {"model": model, "api_base": api_base, "api_key": api_key, "max_turns": max_turns,
           "timeout": timeout, "auto_approve": auto_approve or None, "json": json_ or None,
           "debug": debug or None, "tools": "off" if no_tools else tools, "sandbox": sandbox,
           "request_timeout": request_timeout, "idle_timeout": idle_timeout,
           "max_tokens": max_tokens,
           "network": network or None, "pass_env": tuple(pass_env) if pass_env else None,
           "output_dir": output_dir, "python": python, "local_model": local or None,
           "runners": tuple(runner) if runner else None, "gateway_url": gateway_url}
    from interp.cli.start import start

    raise typer.Exit(start(cli, exec_, resume, tuple(file or ())))


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


@app.command("eval")
def eval_command(
    benchmark: str = typer.Argument(..., metavar="BENCHMARK",
                                    help="tasks (interp's own benchmark), humaneval, "
                                    "humaneval+, mbpp or mbpp+."),
    model: Optional[str] = typer.Option(None, "--model", help="Any litellm model string."),
    local: Optional[str] = typer.Option(None, "--local", metavar="[PATH.gguf]",
                                        help="Score a GGUF model run here by llama.cpp "
                                        "(default: the downloaded one); needs interp[local]."),
    api_base: Optional[str] = typer.Option(None, "--api-base", help="Model endpoint URL."),
    api_key: Optional[str] = typer.Option(None, "--api-key", help="Model API key."),
    feedback: Optional[list[str]] = typer.Option(None, "--feedback", metavar="none|self|oracle",
                                                 help="Modes, comma-separated or repeated "
                                                 "(default none)."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Only the first N problems."),
    jobs: int = typer.Option(1, "--jobs", help="Problems worked on at once."),
    out: Optional[str] = typer.Option(None, "--out", metavar="DIR",
                                      help="Results folder (default ./interp-eval/MODEL)."),
    json_: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
    turns: Optional[int] = typer.Option(None, "--turns", "--max-turns",
                                        help="self and tasks: model calls per problem (default "
                                        "4; tasks: 8)."),
    data: Optional[str] = typer.Option(None, "--data", metavar="PATH",
                                       help="Problems in the EvalPlus JSONL format."),
    temperature: float = typer.Option(0.0, "--temperature", help="Sampling temperature."),
    max_tokens: int = typer.Option(1024, "--max-tokens", help="Most tokens per reply."),
) -> None:
    """Score a model on a code benchmark, with and without execution feedback."""
    from interp.eval.command import EvalArgs, run_eval_command

    args = EvalArgs(benchmark=benchmark.lower(), feedback=tuple(feedback or ()), limit=limit,
                    jobs=jobs, out=out, json=json_, turns=turns, data=data,
                    temperature=temperature, max_tokens=max_tokens)
    model = _model_or_local(model, local, "interp eval")
    raise typer.Exit(run_eval_command(args, {"model": model, "local_model": local or None,
                                             "api_base": api_base, "api_key": api_key}))


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


def _model_or_local(model: str | None, local: str | None, prog: str) -> str | None:
    """The model name: --model's, or "local" for --local (an empty value: the default file)."""
    if local is not None and model:
        typer.echo(f"{prog}: use --model or --local, not both", err=True)
        raise typer.Exit(exits.USAGE)
    from interp.models.base import LOCAL

    return LOCAL if local is not None else model


_TAKES_VALUE = frozenset({"-e", "--exec", "--model", "--api-base", "--api-key", "--max-turns",
                          "--local", "--timeout", "--resume", "--sandbox", "--pass-env",
                          "--output-dir", "--file", "--python", "--format", "-f", "-o", "--output",
                          "--tools", "--request-timeout", "--idle-timeout", "--max-tokens",
                          "--runner", "--gateway-url"})


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
