"""From parsed flags to a running front end: settings, the session, errors and exit statuses."""

from __future__ import annotations

import os
import sys
import traceback
from dataclasses import replace
from typing import TYPE_CHECKING

from interp.cli.build import (Request, attach_files, build_policy, build_session, choose_runners,
                              new_log)
from interp.config.local import no_key_found, prepare_local, startup_notice
from interp.config.models import ModelMaker
from interp.config.settings import ConfigError, Settings, data_dir, load_settings, no_model_help
from interp.core import exits
from interp.errors import UsageError
from interp.models.base import LOCAL

if TYPE_CHECKING:
    from interp.cli.answer import Answer


def _fail(message: str, code: int) -> int:
    from interp.ui.wrap import for_terminal

    sys.stderr.write(for_terminal(message.rstrip("\n"), sys.stderr) + "\n")
    return code


def _say(text: str) -> None:
    """A line of progress on stderr (stdout may carry JSON)."""
    from interp.ui.wrap import for_terminal

    sys.stderr.write(for_terminal(text, sys.stderr) + "\n")
    sys.stderr.flush()


def _warn(text: str) -> None:
    from interp.ui.wrap import for_terminal

    sys.stderr.write(for_terminal(f"interp: warning: {text}", sys.stderr) + "\n")


def start(cli: dict, task: str | None, resume: str | None, files: tuple[str, ...] = (),
          answer: Answer | None = None) -> int:
    """Load settings and run; every failure becomes one clear line and an exit status.

    `files` (--file) are attached to the task, and `answer`'s schema and file (-e only)
    checked: here, before anything starts."""
    try:
        settings = load_settings(cli)
    except ConfigError as exc:
        return _fail(f"interp: {exc}", exits.USAGE)
    for warning in settings.warnings:
        _warn(warning)
    if not settings.model:  # a local model file given, or accepted when offered
        if not (settings.local_model or _use_local_instead(settings)):
            return _fail(no_model_help(), exits.USAGE)
        settings = replace(settings, model=LOCAL)
    if task is not None and not task.strip():
        return _fail("interp: -e needs a task, e.g. interp -e \"list the files here\"", exits.USAGE)
    try:
        request = _answer_request(task, answer)
    except UsageError as exc:
        return _fail(str(exc), exits.USAGE)
    if files:
        from interp.core.files.attachments import AttachmentError, check_attachable

        try:
            files = tuple(str(check_attachable(path)) for path in files)
        except AttachmentError as exc:
            return _fail(f"interp: --file {exc}", exits.USAGE)
    from interp.models.litellm.loader import settle

    if settings.model == LOCAL:  # before the preload: exiting mid-import can crash Python
        try:
            settings = prepare_local(settings,
                                     fetch=_fetch_model if sys.stdin.isatty() else None)
        except UsageError as exc:
            return _fail(str(exc), exits.USAGE)
        except KeyboardInterrupt:
            return _fail("interp: interrupted", exits.INTERRUPTED)
    _preload(settings, interactive=task is None)
    models = ModelMaker(settings, fetch=_fetch_model)
    try:
        return run(settings, Request(task=task, resume=resume, files=files,
                                     output_schema=request.output_schema,
                                     output_file=request.output_file), models)
    except KeyboardInterrupt:
        return _fail("interp: interrupted", exits.INTERRUPTED)
    except BrokenPipeError:  # `interp --json ... | head -2`: the reader has gone
        return _pipe_closed()
    except Exception as exc:  # the last line of defence: one message, a traceback only on --debug
        return _report(exc, settings)
    finally:
        models.close()
        settle()  # exiting while litellm is still being imported can crash Python


def _answer_request(task: str | None, answer: Answer | None) -> Request:
    """--output-schema and --output-file, read and checked (they need a task: -e or stdin)."""
    if not answer:
        return Request()
    from interp.cli.answer import check_output_file, read_schema

    if task is None and sys.stdin.isatty():
        raise UsageError("interp: --output-schema and --output-file go with a task: -e TASK "
                         "(or the task on standard input)")
    schema = read_schema(answer.schema_file) if answer.schema_file else None
    path = check_output_file(answer.output_file) if answer.output_file else None
    return Request(output_schema=schema, output_file=path)


def _preload(settings: Settings, interactive: bool) -> None:
    """Start importing litellm in the background if the model needs it; models whose protocol
    interp speaks itself (interp.models.wire) never wait for it, nor share the CPU with it;
    for them only the HTTP client is imported ahead, while the person types."""
    from interp.models.wire.route import protocol_for
    from interp.models.litellm.loader import preload_in_background

    model = settings.model
    if model != LOCAL and protocol_for(model, settings.api_base, settings.api_key) is None:
        preload_in_background()
    elif interactive:
        preload_in_background(litellm=False)


def _use_local_instead(settings: Settings) -> bool:
    """With no model and no key, a person at a terminal is offered the local model."""
    if not sys.stdin.isatty() or not no_key_found(settings):
        return False
    from rich.console import Console

    from interp.ui.local_setup import offer_local

    try:
        return offer_local(Console(stderr=True))
    except KeyboardInterrupt:
        return False


def _fetch_model(spec, dest, url):
    """The default local model, offered and downloaded in the terminal (or None)."""
    from interp.ui.local_setup import fetch_model

    return fetch_model(spec, dest, url)


def _pipe_closed() -> int:
    """Quietly end after the reader of stdout (or stderr) closed it, as a SIGPIPE would."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        for stream in (sys.stdout, sys.stderr):  # no second error when Python flushes at exit
            try:
                os.dup2(devnull, stream.fileno())
            except (OSError, ValueError, AttributeError):
                pass
    except OSError:
        pass
    return exits.PIPE_CLOSED


def _report(exc: Exception, settings) -> int:
    """One line (a traceback too with --debug), with API keys replaced by [REDACTED]."""
    from interp.secrets import Redactor, secrets_of
    from interp.storage.conversations import StoreError

    scrub = Redactor(secrets_of(settings)).walk
    if isinstance(exc, UsageError):
        return _fail(scrub(str(exc)), exits.USAGE)
    if isinstance(exc, StoreError):
        return _fail(scrub(f"interp: {exc}"), exits.USAGE)
    if settings.debug:
        sys.stderr.write(scrub("".join(traceback.format_exception(exc))))
    return _fail(scrub(f"interp: unexpected error: {type(exc).__name__}: {exc}")
                 + ("" if settings.debug else " (run with --debug for details)"), exits.MODEL_ERROR)


NO_TTY = ("interp: standard input is not a terminal, so interp cannot ask before running code. "
          "Pass --auto-approve (-y) to run the model's code without asking.")


def run(settings: Settings, request: Request, models: ModelMaker | None = None) -> int:
    """Run interp as asked; returns the exit status. `models` makes the models (and owns a
    local model's server: the caller closes it)."""
    from languages import default_registry

    registry = default_registry()
    chosen = choose_runners(settings, registry)  # before the rules: they may name new languages
    policy = build_policy(settings, registry)
    if not sys.stdin.isatty() and not (settings.auto_approve or policy.mode == "auto"):
        raise UsageError(NO_TTY)
    pool = None
    if settings.mcp_servers:  # started in the background meanwhile
        from interp.cli.integrations import start_servers

        pool, said = start_servers(settings, data_dir())
        for line in said:
            _warn(line)
    try:
        return _run(settings, request, models, registry, policy, chosen, pool)
    finally:
        if pool is not None:
            pool.close()


def _run(settings: Settings, request: Request, models: ModelMaker | None, registry, policy,
         chosen: list[str], pool) -> int:
    """The run itself, with the runners' registry, the rules, the runner notices and the MCP
    servers' pool (or None)."""
    from interp.storage.conversations import ConversationStore

    state, keys, approver = _approval(settings, policy, request.task)
    task = request.task if request.task is not None or keys is not None else _stdin_task()
    hooks = None
    if settings.hooks:  # imported only when configured
        from interp.cli.integrations import build_hooks

        hooks = build_hooks(settings, registry, state)
        approver = hooks.approver(approver)  # PreToolUse hooks before the rules
    store = ConversationStore(data_dir() / "sessions")
    models = models or ModelMaker(settings, fetch=_fetch_model)
    line = _status_line(settings, task)
    if models.on_status is None:
        from interp.ui.local_setup import loading_status

        models.on_status = loading_status(line)
    model = models()
    models.preload()  # a local model loads while the runners start and the person types
    if pool is not None:  # before the session: the system prompt lists the tools
        chosen = chosen + _serve_tools(pool, registry)
    session, notices, warnings = build_session(settings, request, approver, store, registry,
                                               model, hooks=hooks)
    for warning in warnings:
        _warn(warning)
    notices = ([startup_notice(settings)] if settings.model == LOCAL else []) + chosen + notices
    if session.log is None:
        session.attach_log(new_log(settings, store))
    notices += attach_files(session, request.files)
    after_reset = _hooked(hooks, session, state, request, notices) if hooks is not None else None
    if task is None:
        from interp.ui.repl import interactive

        return interactive(session, state, notices, banner_model=settings.model,
                           history=data_dir() / "history", make_model=models.switch,
                           new_log=lambda: new_log(settings, store), keys=keys, status=line,
                           loading=models.loading, after_reset=after_reset, mcp=pool)
    return _one_task(settings, request, session, task, notices, keys, line)


def _approval(settings: Settings, policy, task: str | None):
    """(the approval state, the keys of a terminal or None, the approver): rules first, then
    the person at the terminal."""
    from interp.approval.decision import ApprovalState
    from interp.approval.policy import PolicyApprover
    from interp.ui.keys import Keys

    state = ApprovalState(auto=settings.auto_approve or policy.mode == "auto", policy=policy)
    keys = Keys.for_stdin() if sys.stdin.isatty() else None
    human = None
    if keys is not None:  # prompt_toolkit (0.4 s to import) only where someone can answer
        from interp.ui.questions import TerminalApprover

        human = TerminalApprover(state, stderr=task is not None, show=settings.json, keys=keys)
    return state, keys, PolicyApprover(policy, human, state)


def _stdin_task() -> str:
    """The task piped on standard input (at most 1 MiB)."""
    task = sys.stdin.read(1 << 20).strip()
    if not task:
        raise UsageError("interp: no task given on standard input (or use -e TASK).")
    return task


def _serve_tools(pool, registry) -> list[str]:
    """Wait for the MCP servers and give the registry their tools; their notices."""
    from interp.cli.integrations import serve_tools

    said, warned = serve_tools(pool, registry, say=lambda text: _say(f"interp: {text}"))
    for text in warned:
        _warn(text)
    return said


def _hooked(hooks, session, state, request: Request, notices: list[str]):
    """Tie the hooks to the session and run its SessionStart hooks (their lines go to
    `notices`, or are warned); returns what /reset calls to run them again."""
    from interp.cli.integrations import hook_session, session_start

    for said in hook_session(hooks, session, state, "resume" if request.resume else "startup"):
        if said.level == "info":
            notices.append(said.text)
        else:
            _warn(said.text)
    return lambda: [notice.text for notice in session_start(hooks, session, "clear")]


def _one_task(settings: Settings, request: Request, session, task: str, notices: list[str],
              keys, line) -> int:
    """Run one task (-e, or the task on standard input) in JSON or plain form; the answer
    goes to --output-file too."""
    from interp.secrets import secrets_of

    if settings.json:
        from interp.ui.jsonl import run_json

        code = run_json(session, task, notices, secrets_of(settings), keys)
    else:
        from interp.ui.oneshot import run_oneshot

        code = run_oneshot(session, task, notices, secrets_of(settings), keys, status=line)
    if request.output_file:
        from interp.cli.answer import write_answer

        if problem := write_answer(request.output_file, session):
            return _fail(problem, exits.MODEL_ERROR)
    return code


def _status_line(settings: Settings, task: str | None):
    """The status line of the run (on the stream its progress goes to), None with --json."""
    if settings.json:
        return None
    from rich.console import Console

    from interp.ui.status import StatusLine

    return StatusLine.for_console(Console(stderr=task is not None))
