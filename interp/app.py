"""Building a session from settings and running it in the mode the command line asked for."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass

from rich.console import Console
from rich.markdown import Markdown

from languages import Limits, RunnerConfig, Sandbox, SandboxError, check_sandbox, default_registry
from languages.limits import DEFAULT_MEMORY_MB, DEFAULT_PROCESSES

from . import events as ev
from .agent import Session, SessionConfig
from .config import Settings, data_dir, default_config_path
from .drive import drive
from .errors import UsageError
from .model import LiteLLMModel
from .policy import Policy, PolicyApprover, registry_resolver
from .prompts import ApprovalState, TerminalApprover
from .render import Renderer
from .rules import RulesError
from .store import Redactor, SessionStore
from .secrets import runner_env_remove_for, secret_values
from .terminal import OutputFilter, safe_text

EXIT_USAGE = 2
NO_TTY = ("interp: standard input is not a terminal, so interp cannot ask before running code. "
          "Pass --auto-approve (-y) to run the model's code without asking.")


def build_policy(settings: Settings, registry) -> Policy:
    """The approval rules of config.toml's [approval] table; a bad table is a UsageError."""
    try:
        return Policy.from_table(settings.approval, default_config_path(),
                                 registry_resolver(registry))
    except RulesError as exc:
        raise UsageError(f"interp: {exc}") from None


@dataclass(frozen=True)
class Request:
    """What to do: a one-shot task or an interactive session, maybe resuming."""

    task: str | None = None
    resume: str | None = None
    files: tuple[str, ...] = ()  # --file: attached to the task (the first one, interactively)


def secrets_of(settings: Settings) -> list[str]:
    """Values that must never be written to disk or printed (see interp.secrets)."""
    return secret_values(settings.model, settings.api_key)


def make_model(settings: Settings, name: str | None = None) -> LiteLLMModel:
    """A litellm model for the settings (litellm itself loads on first use)."""
    return LiteLLMModel(name or settings.model, api_base=settings.api_base,
                        api_key=settings.api_key)


def build_session(settings: Settings, request: Request, approver, store: SessionStore,
                  registry=None) -> tuple[Session, list[str]]:
    """The session, resumed if asked; also returns notices to show first."""
    config = SessionConfig(max_turns=settings.max_turns, timeout=settings.timeout,
                           tools=settings.tools, runner=runner_config(settings))
    history, log, notices = None, None, startup_notices(config.runner)
    if request.resume:
        sid = store.latest_id() if request.resume == "latest" else store.resolve(request.resume)
        if sid is None:
            raise UsageError("interp: there is no saved conversation to resume yet.")
        history = store.load(sid)
        log = store.open(sid, secrets_of(settings))
        notices.append(f"Resumed conversation {sid} ({len(history)} messages). Runner state "
                       f"(variables, imports, working directory) was not restored.")
    session = Session(make_model(settings), approver, config=config, history=history, log=log,
                      registry=registry)
    return session, notices


def _limit(value: int | None, default: int) -> int | None:
    return default if value is None else (value or None)


def runner_config(settings: Settings) -> RunnerConfig:
    """Runner settings: interpreter, sandbox, limits and the environment without model keys."""
    sandbox = Sandbox(settings.sandbox, network=settings.network)
    try:
        check_sandbox(sandbox, cwd=os.getcwd())
    except SandboxError as exc:
        raise UsageError(f"interp: {exc}") from None
    limits = Limits(memory_mb=_limit(settings.memory_limit, DEFAULT_MEMORY_MB),
                    processes=_limit(settings.process_limit, DEFAULT_PROCESSES))
    return RunnerConfig(python=settings.python, cwd=os.getcwd(), sandbox=sandbox, limits=limits,
                        env_remove=runner_env_remove_for(settings),
                        output_dir=settings.output_dir)


def attach_files(session: Session, paths) -> list[str]:
    """Queue files for the next task; returns a notice per file (AttachmentError if one is bad)."""
    from .attachments import AttachmentError, attachment_notice

    try:
        return [attachment_notice(session.attach(path)) for path in paths]
    except AttachmentError as exc:
        raise UsageError(f"interp: --file {exc}") from None


def startup_notices(config: RunnerConfig) -> list[str]:
    """What the person should know before anything runs: sandbox and unenforceable limits."""
    notices = []
    if config.sandbox.mode != "off":
        notices.append(f"Code runs in a {config.sandbox.describe()}.")
    if warning := config.limits.warning():
        notices.append(warning)
    return notices


def new_log(settings: Settings, store: SessionStore):
    """A new session file."""
    return store.create({"model": settings.model, "cwd": os.getcwd()}, secrets_of(settings))


def run(settings: Settings, request: Request) -> int:
    """Run interp as asked; returns the exit status."""
    interactive_stdin = sys.stdin.isatty()
    task = request.task
    registry = default_registry()
    policy = build_policy(settings, registry)
    auto = settings.auto_approve or policy.mode == "auto"
    if not interactive_stdin and not auto:
        raise UsageError(NO_TTY)
    if task is None and not interactive_stdin:
        task = sys.stdin.read(1 << 20).strip()
        if not task:
            raise UsageError("interp: no task given on standard input (or use -e TASK).")
    store = SessionStore(data_dir() / "sessions")
    state = ApprovalState(auto=auto, policy=policy)
    human = TerminalApprover(state, stderr=task is not None,
                             show=settings.json) if interactive_stdin else None
    approver = PolicyApprover(policy, human, state)
    session, notices = build_session(settings, request, approver, store, registry)
    if session.log is None:
        session.attach_log(new_log(settings, store))
    notices += attach_files(session, request.files)
    if task is None:
        from .repl import interactive

        return interactive(session, state, settings, store, notices)
    if settings.json:
        return run_json(session, task, notices, secrets_of(settings))
    return run_oneshot(session, task, notices, secrets_of(settings))


def run_json(session: Session, task: str, notices: list[str], secrets: list[str] = ()) -> int:
    """JSON Lines on stdout, nothing else; API keys are replaced as in saved sessions."""
    redactor = Redactor(secrets)
    streams: dict[object, OutputFilter] = {}  # per block: a key split across chunks

    def write(item: ev.Event) -> None:
        sys.stdout.write(json.dumps(redactor.walk(item.to_dict())) + "\n")
        sys.stdout.flush()

    def emit(item: ev.Event) -> None:
        index = item.data.get("index")
        if item.type == ev.BLOCK_OUTPUT:
            stream = streams.setdefault(index, OutputFilter(redactor.secrets, sanitize=False))
            item = ev.event(item.type, **dict(item.data, text=stream.feed(item.data["text"])))
            if not item.data["text"]:
                return
        elif item.type == ev.BLOCK_FINISHED and index in streams:
            if rest := streams.pop(index).flush():
                write(ev.event(ev.BLOCK_OUTPUT, index=index, text=rest))
        if item.type not in ev.JSON_HIDDEN:
            write(item)

    for text in notices:
        emit(ev.event(ev.NOTICE, level="info", text=text))
    try:
        code = drive(session, task, emit)
    finally:
        final = session.close()
    emit(ev.event(final.type, **dict(final.data, exit_code=code)))
    return code


def run_oneshot(session: Session, task: str, notices: list[str], secrets: list[str] = ()) -> int:
    """Progress on stderr, the final answer on stdout; both sanitised, secrets redacted."""
    console = Console(stderr=True)
    renderer = Renderer(console, show_final=False, secrets=secrets)
    for text in notices:
        renderer.handle(ev.event(ev.NOTICE, level="info", text=text))
    answers: list[str] = []

    def on_event(item: ev.Event) -> None:
        renderer.handle(item)
        if item.type == ev.MESSAGE and item.data.get("final"):
            answers.append(item.data.get("text") or "")

    try:
        code = drive(session, task, on_event)
    finally:
        renderer.stop()
        session.close()
    if answers:
        out, answer = Console(), renderer.scrub(safe_text(answers[-1]))
        if out.is_terminal:
            out.print(Markdown(answer, hyperlinks=False))
        else:
            sys.stdout.write(answer.rstrip("\n") + "\n")
    return code
