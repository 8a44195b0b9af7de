"""Entry points behind the CLI: settings, error reporting and exit statuses."""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

from .config import ConfigError, load_settings, no_model_help

EXIT_USAGE, EXIT_INTERRUPTED = 2, 130


def _fail(message: str, code: int) -> int:
    sys.stderr.write(message.rstrip("\n") + "\n")
    return code


def start(cli: dict, task: str | None, resume: str | None, files: tuple[str, ...] = ()) -> int:
    """Load settings and run; every failure becomes one clear line and an exit status.

    `files` (--file) are attached to the task: checked here, before anything starts."""
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
    if files:
        from .attachments import AttachmentError, check_attachable

        try:
            files = tuple(str(check_attachable(path)) for path in files)
        except AttachmentError as exc:
            return _fail(f"interp: --file {exc}", EXIT_USAGE)
    from .model import preload_in_background

    preload_in_background()
    try:
        from .app import Request, run

        return run(settings, Request(task=task, resume=resume, files=files))
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


def export_session(session_id: str, fmt: str | None, output: str | None) -> int:
    """Write a saved conversation (id, unique prefix or "latest") as md, ipynb or json."""
    from pathlib import Path

    from .config import data_dir
    from .export import EXTENSIONS, ExportError, export_format, render_export
    from .store import SessionStore, StoreError

    store = SessionStore(data_dir() / "sessions")
    try:
        name = export_format(fmt, output if output not in (None, "-") else "export.md")
        sid = store.latest_id() if session_id == "latest" else store.resolve(session_id)
        if sid is None:
            return _fail("interp: there is no saved conversation to export yet.", EXIT_USAGE)
        text = render_export(store.load(sid), name, title=store.info(sid).title or None)
    except (ExportError, StoreError, OSError) as exc:
        return _fail(f"interp: {exc}", EXIT_USAGE)
    if output == "-":
        sys.stdout.write(text)
        return 0
    path = Path(output or f"interp-{sid}{EXTENSIONS[name]}")
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        return _fail(f"interp: cannot write {path}: {exc.strerror or exc}", 1)
    sys.stderr.write(f"Exported conversation {sid} to {path}.\n")
    return 0


def rules_cli(action: str, kind: str | None = None, entry: str | None = None,
              path: Path | str | None = None) -> int:
    """`interp rules [list]`, `interp rules add KIND ENTRY`, `interp rules remove ENTRY|N`."""
    from languages import default_registry

    from .config import default_config_path
    from .policy import Policy, registry_resolver, rule_lines
    from .rules import RulesError

    path = Path(path) if path is not None else default_config_path()
    try:
        policy = Policy.load(path, registry_resolver(default_registry()))
        if action == "add":
            rule, new = policy.add(kind or "", entry or "", save=True)
            print(f"Added {kind} rule `{rule.entry}` to {path}." if new
                  else f"`{rule.entry}` is already a {kind} rule in {path}.")
        elif action == "remove":
            for item in policy.remove(entry or ""):
                print(f"Removed {item.kind} rule `{item.rule.entry}` from {path}.")
        else:
            items = policy.entries()
            print(f"Approval rules in {path} (mode: {policy.mode}):" if items
                  else f"No approval rules in {path} (mode: {policy.mode}).")
            for line in rule_lines(items, origins=False):
                print(line)
            if not items:
                print("Add one with: interp rules add allow|ask|deny ENTRY")
    except RulesError as exc:
        sys.stderr.write(f"interp: {exc}\n")
        return EXIT_USAGE
    return 0
