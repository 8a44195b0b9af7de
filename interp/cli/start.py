"""From parsed flags to a running front end: settings, the session, errors and exit statuses."""

from __future__ import annotations

import sys
import traceback

from interp.cli.settings import ConfigError, Settings, data_dir, load_settings, no_model_help
from interp.cli.build import (Request, attach_files, build_policy, build_session, choose_runners,
                              make_model, new_log)
from interp.core import exits
from interp.errors import UsageError


def _fail(message: str, code: int) -> int:
    sys.stderr.write(message.rstrip("\n") + "\n")
    return code


def start(cli: dict, task: str | None, resume: str | None, files: tuple[str, ...] = ()) -> int:
    """Load settings and run; every failure becomes one clear line and an exit status.

    `files` (--file) are attached to the task: checked here, before anything starts."""
    try:
        settings = load_settings(cli)
    except ConfigError as exc:
        return _fail(f"interp: {exc}", exits.USAGE)
    for warning in settings.warnings:
        sys.stderr.write(f"interp: warning: {warning}\n")
    if not settings.model:
        return _fail(no_model_help(), exits.USAGE)
    if task is not None and not task.strip():
        return _fail("interp: -e needs a task, e.g. interp -e \"list the files here\"", exits.USAGE)
    if files:
        from interp.core.attachments import AttachmentError, check_attachable

        try:
            files = tuple(str(check_attachable(path)) for path in files)
        except AttachmentError as exc:
            return _fail(f"interp: --file {exc}", exits.USAGE)
    from interp.models.loader import preload_in_background

    preload_in_background()
    try:
        return run(settings, Request(task=task, resume=resume, files=files))
    except KeyboardInterrupt:
        return _fail("interp: interrupted", exits.INTERRUPTED)
    except Exception as exc:  # the last line of defence: one message, a traceback only on --debug
        return _report(exc, settings)


def _report(exc: Exception, settings) -> int:
    """One line (a traceback too with --debug), with API keys replaced by [REDACTED]."""
    from interp.secrets import Redactor, secrets_of
    from interp.storage.sessions import StoreError

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


def run(settings: Settings, request: Request) -> int:
    """Run interp as asked; returns the exit status."""
    from languages import default_registry

    from interp.approval.decision import ApprovalState
    from interp.approval.policy import PolicyApprover
    from interp.secrets import secrets_of
    from interp.storage.sessions import SessionStore
    from interp.ui.questions import TerminalApprover

    interactive_stdin = sys.stdin.isatty()
    task = request.task
    registry = default_registry()
    chosen = choose_runners(settings, registry)  # before the rules: they may name new languages
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
    session, notices, warnings = build_session(settings, request, approver, store, registry)
    notices = chosen + notices
    for warning in warnings:
        sys.stderr.write(f"interp: warning: {warning}\n")
    if session.log is None:
        session.attach_log(new_log(settings, store))
    notices += attach_files(session, request.files)
    if task is None:
        from interp.ui.repl import interactive

        return interactive(session, state, notices, banner_model=settings.model,
                           history=data_dir() / "history",
                           make_model=lambda name: make_model(settings, name),
                           new_log=lambda: new_log(settings, store))
    if settings.json:
        from interp.ui.jsonl import run_json

        return run_json(session, task, notices, secrets_of(settings))
    from interp.ui.oneshot import run_oneshot

    return run_oneshot(session, task, notices, secrets_of(settings))
