"""The subcommands: interp sessions, interp export, interp rules."""

from __future__ import annotations

import sys
from pathlib import Path

from interp.core import exits


def _fail(message: str, code: int) -> int:
    sys.stderr.write(message.rstrip("\n") + "\n")
    return code


def list_sessions() -> int:
    """Print saved conversations, newest first."""
    from interp.cli.settings import data_dir
    from interp.storage.sessions import SessionStore

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

    from interp.cli.settings import data_dir
    from interp.storage.export import EXTENSIONS, ExportError, export_format, render_export
    from interp.storage.sessions import SessionStore, StoreError

    store = SessionStore(data_dir() / "sessions")
    try:
        name = export_format(fmt, output if output not in (None, "-") else "export.md")
        sid = store.latest_id() if session_id == "latest" else store.resolve(session_id)
        if sid is None:
            return _fail("interp: there is no saved conversation to export yet.", exits.USAGE)
        text = render_export(store.load(sid), name, title=store.info(sid).title or None)
    except (ExportError, StoreError, OSError) as exc:
        return _fail(f"interp: {exc}", exits.USAGE)
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

    from interp.cli.settings import default_config_path
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
