"""The subcommands: interp sessions, interp export, interp rules."""

from __future__ import annotations

import sys
from pathlib import Path

from interp.core import exits


def _fail(message: str, code: int) -> int:
    sys.stderr.write(message.rstrip("\n") + "\n")
    return code


def list_sessions(every_directory: bool = False) -> int:
    """Print saved conversations, newest first: those started in this directory, or all."""
    import os

    from interp.config.settings import data_dir
    from interp.storage.conversations import ConversationStore

    here = os.getcwd()
    rows = ConversationStore(data_dir() / "sessions").list(cwd=None if every_directory else here)
    if not rows:
        print("No saved conversations yet." if every_directory else
              f"No saved conversations started in {here}. `interp sessions --all` lists "
              f"every directory's.")
        return 0
    print(session_table(rows))
    return 0


def session_table(rows) -> str:
    """The `interp sessions` table: a header, then a line per conversation."""
    from interp.ui.sanitize import safe_text

    table = [("ID", "STARTED", "MSGS", "MODEL", "DIRECTORY", "FIRST TASK")]
    table += [(info.id, _started(info), str(info.message_count), info.model or "-",
               _home(info.cwd) if info.cwd else "-", info.title) for info in rows]
    table = [tuple(safe_text(cell).replace("\n", " ") for cell in row) for row in table]
    widths = [max(len(row[i]) for row in table) for i in range(5)]
    return "\n".join("  ".join([*(cell.rjust(w) if i == 2 else cell.ljust(w)
                                 for i, (cell, w) in enumerate(zip(row, widths))), row[5]])
                     .rstrip() for row in table)


def _started(info) -> str:
    """When a conversation was started, in local time (its file's last change if unknown)."""
    from datetime import datetime

    try:
        when = datetime.fromisoformat(info.created)
    except (TypeError, ValueError):
        when = info.updated
    return when.astimezone().strftime("%Y-%m-%d %H:%M")


def _home(path: str) -> str:
    """A path with the home directory shown as ~."""
    import os

    home = os.path.expanduser("~")
    if home not in ("", "/") and (path == home or path.startswith(home + os.sep)):
        return "~" + path[len(home):]
    return path


def export_session(session_id: str, fmt: str | None, output: str | None) -> int:
    """Write a saved conversation (id, unique prefix or "latest") as md, ipynb or json."""
    import os

    from interp.cli.resume import find_session
    from interp.config.settings import data_dir
    from interp.errors import UsageError
    from interp.storage.export import EXTENSIONS, ExportError, export_format, render_export
    from interp.storage.conversations import ConversationStore, StoreError

    store = ConversationStore(data_dir() / "sessions")
    try:
        name = export_format(fmt, output if output not in (None, "-") else "export.md")
        sid = find_session(store, session_id, os.getcwd())
        text = render_export(store.load(sid), name, title=store.info(sid).title or None)
    except (ExportError, StoreError, OSError) as exc:
        return _fail(f"interp: {exc}", exits.USAGE)
    except UsageError as exc:
        return _fail(str(exc), exits.USAGE)
    if output == "-":
        sys.stdout.write(text)
        return 0
    path = Path(output or f"interp-{sid}{EXTENSIONS[name]}")
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        return _fail(f"interp: cannot write {path}: {exc.strerror or exc}", exits.MODEL_ERROR)
    sys.stderr.write(f"Exported conversation {sid} to {path}.\n")
    return 0



def rules_cli(action: str, kind: str | None = None, entry: str | None = None,
              path: Path | str | None = None) -> int:
    """`interp rules [list]`, `interp rules add KIND ENTRY`, `interp rules remove ENTRY|N`."""
    from languages import default_registry

    from interp.config.settings import default_config_path
    from interp.approval.policy import Policy, registry_resolver, rule_lines
    from interp.approval.rules import RulesError

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
        return exits.USAGE
    return 0
