"""Entry points behind the CLI: settings, error reporting and exit statuses."""

from __future__ import annotations

import sys
import traceback

from .config import ConfigError, load_settings, no_model_help

EXIT_USAGE, EXIT_INTERRUPTED = 2, 130


def _fail(message: str, code: int) -> int:
    sys.stderr.write(message.rstrip("\n") + "\n")
    return code


def start(cli: dict, task: str | None, resume: str | None) -> int:
    """Load settings and run; every failure becomes one clear line and an exit status."""
    try:
        settings = load_settings(cli)
    except ConfigError as exc:
        return _fail(f"interp: {exc}", EXIT_USAGE)
    for warning in settings.warnings:
        sys.stderr.write(f"interp: warning: {warning}\n")
    if not settings.model:
        return _fail(no_model_help(), EXIT_USAGE)
    if task is not None and not task.strip():
        return _fail("interp: -e needs a task, e.g. interp -e \"list the files here\"", EXIT_USAGE)
    from .model import preload_in_background

    preload_in_background()
    try:
        from .app import Request, run

        return run(settings, Request(task=task, resume=resume))
    except KeyboardInterrupt:
        return _fail("interp: interrupted", EXIT_INTERRUPTED)
    except Exception as exc:  # the last line of defence: one message, a traceback only on --debug
        return _report(exc, settings)


def _report(exc: Exception, settings) -> int:
    """One line (a traceback too with --debug), with API keys replaced by [REDACTED]."""
    from .errors import UsageError
    from .secrets import secrets_of
    from .store import Redactor, StoreError

    scrub = Redactor(secrets_of(settings)).walk
    if isinstance(exc, UsageError):
        return _fail(scrub(str(exc)), EXIT_USAGE)
    if isinstance(exc, StoreError):
        return _fail(scrub(f"interp: {exc}"), EXIT_USAGE)
    if settings.debug:
        sys.stderr.write(scrub("".join(traceback.format_exception(exc))))
    return _fail(scrub(f"interp: unexpected error: {type(exc).__name__}: {exc}")
                 + ("" if settings.debug else " (run with --debug for details)"), 1)


def list_sessions() -> int:
    """Print saved conversations, newest first."""
    from .config import data_dir
    from .store import SessionStore

    rows = SessionStore(data_dir() / "sessions").list()
    if not rows:
        print("No saved conversations yet.")
        return 0
    for info in rows:
        when = info.updated.strftime("%Y-%m-%d %H:%M")
        print(f"{info.id}  {when}  {info.message_count:>4} msgs  {info.model or '-':<24} "
              f"{info.title}")
    return 0
