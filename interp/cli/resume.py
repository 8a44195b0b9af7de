"""--resume: which saved conversation to continue, and what the person and the model are told."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from interp.core.history import Entry
from interp.errors import UsageError
from interp.storage.conversations import ConversationLog, ConversationStore, same_dir


@dataclass
class Resumed:
    """A saved conversation reopened to continue it."""

    id: str
    messages: list[Entry]
    log: ConversationLog
    started_in: str | None
    notice: str  # for the person
    note: str  # for the model, with the next task
    warning: str | None = None  # it was started in another directory
    skipped: list[str] = field(default_factory=list)  # saved lines that could not be used


@dataclass(frozen=True)
class Purpose:
    """What a conversation is looked up for, in the words of the command that looks."""

    command: str  # "interp" or "interp rewind"
    verb: str  # "resume"
    pick: str  # how to name another one: "`--resume ID` continues one"


RESUME = Purpose("interp", "resume", "`--resume ID` continues one")
REWIND = Purpose("interp rewind", "rewind", "`interp rewind ID` rewinds one")


def find_session(store: ConversationStore, which: str, cwd: str,
                 purpose: Purpose = RESUME) -> str:
    """The id to resume (or rewind, as `purpose` says): "latest" is the latest conversation
    started in `cwd`."""
    if which != "latest":
        return store.resolve(which)
    sid = store.latest_id(cwd=cwd)
    if sid is not None:
        return sid
    if store.latest_id() is None:
        raise UsageError(f"{purpose.command}: there is no saved conversation to "
                         f"{purpose.verb} yet.")
    raise UsageError(f"{purpose.command}: no saved conversation was started in this directory "
                     f"({cwd}); `interp sessions --all` lists the others, {purpose.pick}.")


def resume(store: ConversationStore, which: str, cwd: str, secrets: Iterable[str | None] = ()
           ) -> Resumed:
    """Reopen a saved conversation (an id, a unique prefix, or "latest" in `cwd`)."""
    sid = find_session(store, which, cwd)
    messages, skipped = store.load_checked(sid)
    started = store.started_in(sid)
    elsewhere = started is not None and not same_dir(started, cwd)
    notice = (f"Resumed conversation {sid} ({len(messages)} messages). Runner state "
              f"(variables, imports, working directory) was not restored.")
    note = ("[interp: this conversation was resumed in a new interp process. Runner state was "
            "not restored: variables, imports, functions and any directory change made by "
            f"earlier blocks are gone, and blocks now start in {cwd}.")
    warning = None
    if elsewhere:
        warning = (f"conversation {sid} was started in {started}, not in this directory "
                   f"({cwd}); its blocks will run here.")
        note += f" The conversation was started in {started}; the working directory is now {cwd}."
    return Resumed(sid, messages, store.open(sid, secrets), started, notice, note + "]", warning,
                   skipped)

