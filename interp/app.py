"""Building a session from settings and running it in the mode the command line asked for."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass

from rich.console import Console
from rich.markdown import Markdown

from languages import RunnerConfig

from . import events as ev
from .agent import Session, SessionConfig
from .approval import auto_approve
from .config import Settings, data_dir
from .drive import drive
from .errors import UsageError
from .model import LiteLLMModel
from .prompts import ApprovalState, TerminalApprover
from .render import Renderer
from .store import Redactor, SessionStore
from .terminal import safe_text

EXIT_USAGE = 2
NO_TTY = ("interp: standard input is not a terminal, so interp cannot ask before running code. "
          "Pass --auto-approve (-y) to run the model's code without asking.")


@dataclass(frozen=True)
class Request:
    """What to do: a one-shot task or an interactive session, maybe resuming."""

    task: str | None = None
    resume: str | None = None


def secrets_of(settings: Settings) -> list[str]:
    """Values that must never be written to disk or printed: the key and *_API_KEY variables."""
    values = [settings.api_key] if settings.api_key else []
    values += [v for k, v in os.environ.items() if k.endswith(("_API_KEY", "_API_TOKEN")) and v]
    return values


def make_model(settings: Settings, name: str | None = None) -> LiteLLMModel:
    """A litellm model for the settings (litellm itself loads on first use)."""
    return LiteLLMModel(name or settings.model, api_base=settings.api_base,
                        api_key=settings.api_key)


def build_session(settings: Settings, request: Request, approver, store: SessionStore
                  ) -> tuple[Session, list[str]]:
    """The session, resumed if asked; also returns notices to show first."""
    config = SessionConfig(max_turns=settings.max_turns, timeout=settings.timeout,
                           tools=settings.tools,
                           runner=RunnerConfig(python=settings.python, cwd=os.getcwd()))
    history, log, notices = None, None, []
    if request.resume:
        sid = store.latest_id() if request.resume == "latest" else store.resolve(request.resume)
        if sid is None:
            raise UsageError("interp: there is no saved conversation to resume yet.")
        history = store.load(sid)
        log = store.open(sid, secrets_of(settings))
        notices.append(f"Resumed conversation {sid} ({len(history)} messages). Runner state "
                       f"(variables, imports, working directory) was not restored.")
    session = Session(make_model(settings), approver, config=config, history=history, log=log)
    return session, notices


def new_log(settings: Settings, store: SessionStore):
    """A new session file."""
    return store.create({"model": settings.model, "cwd": os.getcwd()}, secrets_of(settings))


def run(settings: Settings, request: Request) -> int:
    """Run interp as asked; returns the exit status."""
    interactive_stdin = sys.stdin.isatty()
    task = request.task
    if not interactive_stdin and not settings.auto_approve:
        raise UsageError(NO_TTY)
    if task is None and not interactive_stdin:
        task = sys.stdin.read(1 << 20).strip()
        if not task:
            raise UsageError("interp: no task given on standard input (or use -e TASK).")
    store = SessionStore(data_dir() / "sessions")
    state = ApprovalState(auto=settings.auto_approve)
    approver = auto_approve if settings.auto_approve else TerminalApprover(
        state, stderr=task is not None, show=settings.json)
    session, notices = build_session(settings, request, approver, store)
    if session.log is None:
        session.attach_log(new_log(settings, store))
    if task is None:
        from .repl import interactive

        return interactive(session, state, settings, store, notices)
    if settings.json:
        return run_json(session, task, notices, secrets_of(settings))
    return run_oneshot(session, task, notices)


def run_json(session: Session, task: str, notices: list[str], secrets: list[str] = ()) -> int:
    """JSON Lines on stdout, nothing else; API keys are replaced as in saved sessions."""
    redactor = Redactor(secrets)

    def emit(item: ev.Event) -> None:
        if item.type not in ev.JSON_HIDDEN:
            sys.stdout.write(json.dumps(redactor.walk(item.to_dict())) + "\n")
            sys.stdout.flush()

    for text in notices:
        emit(ev.event(ev.NOTICE, level="info", text=text))
    try:
        code = drive(session, task, emit)
    finally:
        final = session.close()
    emit(ev.event(final.type, **dict(final.data, exit_code=code)))
    return code


def run_oneshot(session: Session, task: str, notices: list[str]) -> int:
    """Progress on stderr, the final answer on stdout."""
    console = Console(stderr=True)
    renderer = Renderer(console, show_final=False)
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
        out = Console()
        if out.is_terminal:
            out.print(Markdown(safe_text(answers[-1])))
        else:
            sys.stdout.write(answers[-1].rstrip("\n") + "\n")
    return code
