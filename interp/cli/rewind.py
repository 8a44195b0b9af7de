"""`interp rewind`: list, diff or undo what a saved conversation's blocks did to its folder.

Exit status: 0 done; 1 refused, nothing was changed (files changed outside interp since the
checkpoint and no --force, or another interp has the conversation open) or some files could
not be put back (each is named); 2 a bad argument (no such conversation, block or checkpoint).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

from interp.core import exits
from interp.core.history import Entry

REFUSED = 1  # README: Checkpoints and rewind


@dataclass(frozen=True)
class RewindArgs:
    """What `interp rewind` was asked."""

    session_id: str | None = None
    to: int | None = None
    list: bool = False
    diff: int | None = None
    undo: bool = False
    conversation: bool = False
    force: bool = False


def _fail(message: str, code: int) -> int:
    from interp.ui.wrap import for_terminal

    sys.stderr.write(for_terminal(message.rstrip("\n"), sys.stderr) + "\n")
    return code


def _say(text: str, hang: int | None = None) -> None:
    """A line on standard output, wrapped at word boundaries on a terminal."""
    from interp.ui.wrap import for_terminal

    print(for_terminal(text, sys.stdout, hang))


def rewind_cli(args: RewindArgs) -> int:
    """Run `interp rewind`; returns its exit status."""
    from interp.checkpoints.rewind import Rewinder, RewindError
    from interp.cli.resume import REWIND, find_session
    from interp.config.settings import data_dir
    from interp.errors import UsageError
    from interp.storage.conversations import ConversationStore, StoreError

    if sum((args.to is not None, args.diff is not None, args.undo)) > 1:
        return _fail("interp rewind: use one of --to, --diff and --undo", exits.USAGE)
    if args.conversation and args.to is None:
        return _fail("interp rewind: --conversation goes with --to N", exits.USAGE)
    store = ConversationStore(data_dir() / "sessions")
    try:
        sid = find_session(store, args.session_id or "latest", os.getcwd(), REWIND)
        messages = store.load(sid)
        rewinder = Rewinder(data_dir() / "checkpoints", store.path_for(sid), sid, messages)
    except UsageError as exc:
        return _fail(str(exc), exits.USAGE)
    except (StoreError, RewindError) as exc:
        return _fail(f"interp rewind: {exc}", exits.USAGE)
    try:
        if args.diff is not None:
            return _diff(rewinder, args.diff)
        if args.to is None and not args.undo:
            return _list(rewinder, sid)
        return _rewind(rewinder, store, sid, messages, args)
    except RewindError as exc:
        return _fail(f"interp rewind: {exc}", exits.USAGE)
    finally:
        rewinder.close()


def _list(rewinder, sid: str) -> int:
    from interp.checkpoints.rewind import LISTED_CHANGES, listing

    points = rewinder.points()
    if not points:
        _say(f"Conversation {sid} has no block with a checkpoint.")
        return 0
    _say(f"Blocks of conversation {sid} in {rewinder.root} (interp rewind --to N puts the "
         f"folder back as it was before block N):")
    for line in listing(points, rewinder.history.rewinds):
        _say(line, LISTED_CHANGES)
    return 0


def _diff(rewinder, index: int) -> int:
    text = rewinder.diff(index)
    if not text:
        _say(f"Block {index} changed no file.")
        return 0
    if sys.stdout.isatty():
        from interp.ui.sanitize import visible

        sys.stdout.write(visible(text.decode("utf-8", "replace")))
    else:  # as git writes it, for a file or another program
        sys.stdout.flush()
        sys.stdout.buffer.write(text)
    return 0


def _rewind(rewinder, store, sid: str, messages: list[Entry], args: RewindArgs) -> int:
    from interp.checkpoints.rewind import applied_summary, conversation_cut
    from interp.core.files.workspace import safe_path
    from interp.storage.conversations import StoreError

    cut = conversation_cut(messages, args.to) if args.conversation else None
    if args.conversation and cut is None:
        return _fail(f"interp rewind: block {args.to}'s reply is not in the conversation",
                     exits.USAGE)
    plan = rewinder.plan_undo() if args.undo else rewinder.plan_to(args.to)
    where = "before the last rewind" if args.undo else f"before block {args.to}"
    if plan.outside and not args.force:
        named = ", ".join(safe_path(p) for p in plan.outside)
        return _fail(f"interp rewind: refused, nothing was changed: these files changed outside "
                     f"interp since then and would be overwritten: {named}. Run again with "
                     f"--force to put them back too.", REFUSED)
    if not plan:
        _say(f"Nothing to put back: the folder is as it was {where}.")
        return 0
    try:
        log = store.open(sid)
    except StoreError as exc:  # another interp has it open (or it cannot be locked)
        return _fail(f"interp rewind: refused, nothing was changed: {exc}", REFUSED)
    try:
        applied, _ = rewinder.carry_out(plan, None if args.undo else args.to, log,
                                        conversation=cut is not None)
        if cut is not None:
            log.append_undo(len(messages) - cut)
    finally:
        log.close()
    _say(f"The folder is back as it was {where}: {applied_summary(applied)}.")
    if plan.uncovered:
        _say("Not covered (over the size bound when recorded): "
             + ", ".join(safe_path(p) for p in plan.uncovered))
    if cut is not None:
        _say(f"The conversation went back to before block {args.to}'s reply.")
    _say("interp rewind --undo puts it back as it was.")
    for problem in applied.problems:
        _fail(f"interp rewind: {safe_path(problem)}", REFUSED)
    return REFUSED if applied.problems else 0
