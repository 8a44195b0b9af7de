"""Asking the person: the approval question, code editing and the task prompt (prompt_toolkit)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import Callable
from pathlib import Path

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import Completer, Completion
from prompt_toolkit.history import FileHistory, InMemoryHistory
from prompt_toolkit.input.typeahead import clear_typeahead
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.output import create_output

from interp.approval.decision import RUN, ApprovalState, Decision, Proposal, decline
from interp.approval.prefixes import always_choices
from interp.ui.keys import Keys
from interp.ui.sanitize import visible
from interp.ui.status import SPINNER, elapsed
from interp.ui.wrap import for_terminal

_SUFFIX = {"python": ".py", "shell": ".sh", "javascript": ".js"}
_QUESTION = "Run this {language} block? [y]es / [n]o / [e]dit / [a]lways: "
_KEYS_HELP = ("Press one key: y runs the block, n declines it (you may say why), e edits it "
              "first, a always allows it; Esc or Ctrl-C stops the turn.")
_ANSWERS = {"y": "yes", "n": "no", "e": "edit", "a": "always"}


def _prompt_session(stderr: bool) -> PromptSession:
    output = create_output(stdout=sys.stderr) if stderr else None
    return PromptSession(history=InMemoryHistory(), output=output)


class TerminalApprover:
    """Asks for each proposal with a single key (y / n / e / a, no Enter); Ctrl-C or Esc
    raises KeyboardInterrupt (the session stops the turn).

    It always asks: whether to ask at all (rules, auto mode) is for the PolicyApprover that
    wraps it, which also says why it asks (`Proposal.why`). `a` offers allow rules (the
    prefixes of the block's commands, or its language, for the session or saved to
    config.toml) when `state.policy` is set; without one it means "this language, for the
    session". A watch on `keys` (interp.ui.drive) is paused while it asks."""

    def __init__(self, state: ApprovalState, *, stderr: bool = False, show: bool = False,
                 keys: Keys | None = None) -> None:
        self.state = state
        self._session = _prompt_session(stderr)
        self._show = show
        self._out = sys.stderr if stderr else sys.stdout
        self._keys = keys if keys is not None else Keys(sys.stdin.fileno())

    def __call__(self, proposal: Proposal) -> Decision:
        """Ask until the key is one of y, n, e or a."""
        with self._keys.paused():
            if self._show:
                from rich.console import Console

                from interp.ui.panels import code_panel

                Console(stderr=True).print(code_panel(proposal.language, proposal.code,
                                                      "proposed"))
            if proposal.why:
                self._say(f"Asking because {visible(proposal.why)}.")
            while True:
                key = self._key(_QUESTION.format(language=proposal.language))
                if key == "y":
                    return RUN
                if key == "a":
                    if self.state.policy is None:
                        return Decision(run=True, always=True)
                    decision = self._always(proposal)
                    if decision is not None:
                        return decision
                elif key == "n":
                    return decline(self._ask_reason())
                elif key == "e":
                    return self._edit(proposal)
                elif key == "ctrl-d":
                    return decline("the user closed the input", stop=True)
                else:
                    self._say(_KEYS_HELP)

    def _say(self, text: str) -> None:
        self._out.write(for_terminal(text, self._out) + "\n")  # at word boundaries
        self._out.flush()

    def _key(self, question: str, esc_stops: bool = True) -> str:
        """Show the question, read one key and show it; Ctrl-C (and Esc, if `esc_stops`)
        raise KeyboardInterrupt."""
        self._out.write(question)
        self._out.flush()
        key = self._keys.read_key()
        shown = {"ctrl-c": "^C", "esc": "Esc", "ctrl-d": "^D", "enter": "Enter"}.get(key)
        self._say(_ANSWERS.get(key.lower(), shown or (key if len(key) == 1 else "?")))
        if key == "ctrl-c" or (key == "esc" and esc_stops):
            raise KeyboardInterrupt
        return key.lower() if len(key) == 1 else key

    def _always(self, proposal: Proposal) -> Decision | None:
        """The "always allow" menu; None (Enter or Esc) goes back to the question."""
        targets = always_choices(proposal.language, proposal.code, self.state.policy.resolve)
        scopes = [("for this session", False),
                  ("from now on (saved to config.toml)", True)]
        choices = [(f"{shown} {scope}", entry, save)
                   for scope, save in scopes for shown, entry in targets]
        lines = [f"  {n}) {text}" for n, (text, _, _) in enumerate(choices, 1)]
        self._say("Always allow, without asking:\n" + "\n".join(lines))
        question = f"Which? [1-{len(choices)}, Enter or Esc to go back]: "
        while True:
            key = self._key(question, esc_stops=False)
            if key in ("enter", "esc", "backspace", "ctrl-d"):
                return None
            if key.isdigit() and 1 <= int(key) <= len(choices):
                _, entry, save = choices[int(key) - 1]
                return Decision(run=True, allow=entry, save=save)

    def _ask_reason(self) -> str | None:
        _discard_typeahead(self._session)
        try:
            reason = self._session.prompt("Reason for the model (optional, Enter to skip): ")
        except EOFError:
            return None
        return reason.strip() or None

    def _edit(self, proposal: Proposal) -> Decision:
        code = edit_code(proposal.code, proposal.language, self._session)
        if code is None or not code.strip():
            return decline("the user cleared the code while editing it")
        return Decision(run=True, code=code)


def _discard_typeahead(session: PromptSession) -> None:
    """Drop keys typed before the question was shown (say, while a block ran): they must not
    answer a question about code the person has not seen yet."""
    clear_typeahead(session.input)
    try:
        fd = session.input.fileno()
        if os.isatty(fd):
            termios.tcflush(fd, termios.TCIFLUSH)
    except (OSError, ValueError, NotImplementedError):
        pass


def edit_code(code: str, language: str, session: PromptSession) -> str | None:
    """$VISUAL/$EDITOR on a temporary file if set, else an inline multi-line editor."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if editor:
        return _external_edit(code, language, editor)
    # A separate session: PromptSession.prompt() keeps `multiline` for later calls, which would
    # turn Enter at the next approval question into "insert a new line".
    editor_session = PromptSession(history=InMemoryHistory(), output=session.output,
                                   multiline=True)
    try:
        return editor_session.prompt("Edit, then Esc-Enter to run (Ctrl-C cancels):\n",
                                     default=code)
    except EOFError:
        return None


def _external_edit(code: str, language: str, editor: str) -> str | None:
    fd, name = tempfile.mkstemp(suffix=_SUFFIX.get(language, ".txt"), prefix="interp-edit-")
    path = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(code)
        status = subprocess.run([*shlex.split(editor), name], check=False).returncode
        if status != 0:
            return None
        edited = path.read_text(encoding="utf-8", errors="replace")
        # Editors such as vim add a final newline on save: that alone is not an edit.
        return code if edited.rstrip("\n") == code.rstrip("\n") else edited
    except OSError:
        return None
    finally:
        path.unlink(missing_ok=True)


class SlashCompleter(Completer):
    """Completes a slash command's name at the start of the line."""

    def __init__(self, names: list[str]) -> None:
        self.names = names

    def get_completions(self, document, complete_event):
        text = document.text_before_cursor
        if not text.startswith("/") or any(c.isspace() for c in text):
            return
        for name in self.names:
            if name.startswith(text):
                yield Completion(name, start_position=-len(text))


def show_loading(prompt: PromptSession, loading: Callable[[], float | None] | None) -> None:
    """Set up the prompt's next question to show a background model load below it (refreshed
    twice a second) while the load lasts; no toolbar when nothing is loading."""
    prompt.bottom_toolbar, prompt.refresh_interval = None, 0
    if loading is None or loading() is None:
        return
    started = time.monotonic()

    def toolbar() -> str:
        seconds = loading()
        if seconds is None:
            return " local model ready"
        spin = SPINNER[int((time.monotonic() - started) * 10) % len(SPINNER)]
        return f" {spin} loading the local model · {elapsed(seconds)}"

    prompt.bottom_toolbar, prompt.refresh_interval = toolbar, 0.5


def task_prompt(history_path: Path | None, commands: list[str] = ()) -> PromptSession:
    """The task prompt: history file, Esc-Enter for a new line, pasted newlines kept, Tab
    completes slash commands."""
    bindings = KeyBindings()

    @bindings.add("escape", "enter")
    def _newline(event) -> None:
        event.current_buffer.insert_text("\n")

    history = InMemoryHistory()
    if history_path is not None:
        try:
            history_path.parent.mkdir(parents=True, exist_ok=True)
            history = FileHistory(os.fspath(history_path))
        except OSError:
            pass
    completer = SlashCompleter(list(commands)) if commands else None
    return PromptSession(history=history, key_bindings=bindings, multiline=False,
                         completer=completer, complete_while_typing=False)
