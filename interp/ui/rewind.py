"""/rewind and /diff at the interactive prompt (see interp.checkpoints.rewind).

/rewind lists the conversation's blocks with the files each one changed and asks which one
to go back to before; /rewind N goes straight to block N; /rewind undo undoes the last
rewind. Before anything changes the person sees what goes back and chooses the files only or
the conversation too; files changed outside interp since are named and asked about. Esc,
Ctrl-C or Enter at any question cancels, and nothing changes.
"""

from __future__ import annotations

from rich.text import Text

from interp.checkpoints.rewind import (LISTED_CHANGES, Rewinder, RewindError, applied_summary,
                                       conversation_cut, listing)
from interp.core.files.workspace import safe_path
from interp.ui.wrap import wrapped

_LIMIT = 12  # paths named in a question before "and N more"


class _Cancelled(Exception):
    """The person cancelled at a question."""


def rewind_command(ctx, arg: str) -> None:
    """/rewind [N | undo]."""
    rewinder = _rewinder(ctx)
    if rewinder is None:
        return
    try:
        _rewind(ctx, rewinder, arg.strip().lower())
    except RewindError as exc:
        _warn(ctx, f"Cannot rewind: {exc}.")
    except (_Cancelled, KeyboardInterrupt, EOFError):
        ctx.console.print("Rewind cancelled: nothing changed.")
    finally:
        rewinder.close()


def diff_command(ctx, arg: str) -> None:
    """/diff [N]: what block N (default: the last with checkpoints) changed."""
    rewinder = _rewinder(ctx)
    if rewinder is None:
        return
    try:
        points = [p for p in rewinder.points() if p.changes is not None]
        if arg.strip():
            index = _number(arg)
        elif points:
            index = points[-1].index
        else:
            raise RewindError("no block of this conversation has a recorded change yet")
        text = rewinder.diff(index)
        if not text:
            ctx.console.print(Text(f"Block {index} changed no file."))
        else:
            ctx.console.print(_coloured(text.decode("utf-8", "replace")))
    except RewindError as exc:
        _warn(ctx, f"No diff: {exc}.")
    finally:
        rewinder.close()


def _rewind(ctx, rewinder: Rewinder, arg: str) -> None:
    session = ctx.session
    if arg == "undo":
        index, plan = None, rewinder.plan_undo()
        where = "before the last rewind"
    else:
        index = _number(arg) if arg else _choose(ctx, rewinder)
        rewinder.point(index)  # a clear line before anything is recorded
        plan = rewinder.plan_to(index)
        where = f"before block {index}"
    if not plan:
        ctx.console.print(Text(f"Nothing to put back: the folder is as it was {where}."))
        return
    restore = [p for p, _, _ in plan.write] + [p for p, _ in plan.chmod]
    ctx.console.print(Text(f"Going back to {where} puts back {_names(restore) or 'no file'}"
                           + (f" and removes {_names(plan.remove)}" if plan.remove else "")
                           + "."))
    cut = conversation_cut(session.messages, index) if index is not None else None
    both = _ask_scope(ctx, index, cut)
    keep: tuple[str, ...] = ()
    if plan.outside:
        ctx.console.print(Text(f"Changed outside interp since then: {_names(plan.outside)}.",
                               style="yellow"))
        key = _key(ctx, "[o]verwrite them too, [k]eep them as they are, Esc cancels: ", "ok")
        keep = plan.outside if key == "k" else ()
    applied, mark = rewinder.carry_out(plan.keeping(set(keep)), index, session.log, kept=keep,
                                       conversation=both)
    if both:
        _drop_messages(session, cut)
    session.tell(mark.note())
    ctx.console.print(Text(f"The folder is back as it was {where}: "
                           f"{applied_summary(applied, keep)}."
                           + (" The conversation went back to before that block's reply."
                              if both else "") + " /rewind undo puts it back."))
    if plan.uncovered:
        _warn(ctx, f"Not covered (over the size bound when recorded): {_names(plan.uncovered)}.")
    for problem in applied.problems:
        _warn(ctx, safe_path(problem))


def _choose(ctx, rewinder: Rewinder) -> int:
    """List the blocks and read the number of the one to go back to before."""
    points = rewinder.points()
    if not points:
        raise RewindError("no block of this conversation has a checkpoint yet")
    ctx.console.print("Blocks of this conversation (the folder can go back to how it was "
                      "before any of them):")
    for line in listing(points, rewinder.history.rewinds):  # wrapped under the changes
        ctx.console.print(Text(wrapped(line, ctx.console.width, LISTED_CHANGES)), soft_wrap=True)
    first, last = points[0].index, points[-1].index
    shown = f"{first}" if first == last else f"{first}-{last}"
    answer = _line(ctx, f"Rewind to before which block? [{shown}, Enter cancels]: ")
    if not answer.strip():
        raise _Cancelled
    return _number(answer)


def _ask_scope(ctx, index: int | None, cut: int | None) -> bool:
    """Files only (False) or the conversation too (True)."""
    if index is None or cut is None:
        _key(ctx, "Go ahead? [y]es, Esc cancels: ", "y")
        return False
    key = _key(ctx, "[f]iles only, [b]oth files and conversation (drops block "
                    f"{index}'s reply and what came after), Esc cancels: ", "fb")
    return key == "b"


def _key(ctx, question: str, allowed: str) -> str:
    """One of the `allowed` keys; Esc, Ctrl-C, Ctrl-D or Enter cancel."""
    keys = _keys(ctx)
    with keys.paused():
        while True:
            ctx.console.print(Text(question), end="")
            key = keys.read_key()
            ctx.console.print(Text(key if len(key) == 1 else {
                "esc": "Esc", "enter": "Enter", "ctrl-c": "^C"}.get(key, "?")))
            if key in ("esc", "ctrl-c", "ctrl-d", "enter"):
                raise _Cancelled
            if key.lower() in allowed:
                return key.lower()


def _line(ctx, question: str) -> str:
    from prompt_toolkit import PromptSession

    with _keys(ctx).paused():
        return PromptSession().prompt(question)


def _keys(ctx):
    if ctx.keys is None:
        from interp.ui.keys import Keys

        ctx.keys = Keys.for_stdin()
        if ctx.keys is None:
            raise _Cancelled
    return ctx.keys


def _rewinder(ctx) -> Rewinder | None:
    session = ctx.session
    checkpoints = getattr(session, "checkpoints", None)
    if checkpoints is None:
        _warn(ctx, "Checkpoints are off in this session (checkpoints = false, --no-checkpoints "
                   "or INTERP_CHECKPOINTS=0): there is nothing to rewind.")
        return None
    if session.log is None:
        _warn(ctx, "This conversation is not saved, so it has no checkpoints.")
        return None
    try:
        return Rewinder(checkpoints.base, session.log.path, session.log.id, session.messages)
    except RewindError as exc:
        _warn(ctx, f"Nothing to rewind: {exc}." if "no checkpoints" in str(exc)
              else f"Cannot rewind: {exc}.")
        return None


def _drop_messages(session, cut: int) -> None:
    """Drop the conversation from message `cut` on (saved as an undo line)."""
    dropped = len(session.messages) - cut
    del session.messages[cut:]
    if session.log is not None and dropped:
        session.log.append_undo(dropped)


def _number(text: str) -> int:
    try:
        return int(text.strip().lstrip("#"))
    except ValueError:
        raise RewindError(f"{text.strip()!r} is not a block number (or undo)") from None


def _names(paths) -> str:
    paths = list(paths)
    shown = ", ".join(safe_path(p) for p in paths[:_LIMIT])
    return shown + (f" and {len(paths) - _LIMIT} more" if len(paths) > _LIMIT else "")


def _coloured(diff: str) -> Text:
    from interp.ui.sanitize import visible

    out = Text()
    for line in diff.splitlines():
        style = ("green" if line.startswith("+") and not line.startswith("+++") else
                 "red" if line.startswith("-") and not line.startswith("---") else
                 "cyan" if line.startswith("@@") else "bold" if line.startswith("diff ") else "")
        out.append(visible(line) + "\n", style=style)
    out.rstrip()
    return out


def _warn(ctx, text: str) -> None:
    ctx.console.print(Text(text, style="yellow"))
