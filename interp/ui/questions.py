"""Asking the person: the approval question, code editing and the task prompt (prompt_toolkit)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
import termios
from pathlib import Path

from prompt_toolkit import PromptSession
from prompt_toolkit.history import FileHistory, InMemoryHistory
from prompt_toolkit.input.typeahead import clear_typeahead
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.output import create_output

from interp.approval.decision import RUN, ApprovalState, Decision, Proposal, decline
from interp.approval.rules import prefix_rule
from interp.ui.sanitize import visible

_SUFFIX = {"python": ".py", "shell": ".sh", "javascript": ".js"}
_QUESTION = "Run this {language} block? [y]es / [n]o / [e]dit / [a]lways {language}: "


def _prompt_session(stderr: bool) -> PromptSession:
    output = create_output(stdout=sys.stderr) if stderr else None
    return PromptSession(history=InMemoryHistory(), output=output)


class TerminalApprover:
    """Asks y/n/e/a for each proposal; Ctrl-C raises KeyboardInterrupt (the session stops).

    It always asks: whether to ask at all (rules, auto mode) is for the PolicyApprover that
    wraps it. `a` offers allow rules (this command prefix or this language, for the session
    or saved to config.toml) when `state.policy` is set; without one it means "this
    language, for the session"."""

    def __init__(self, state: ApprovalState, *, stderr: bool = False, show: bool = False) -> None:
        self.state = state
        self._session = _prompt_session(stderr)
        self._show = show

    def __call__(self, proposal: Proposal) -> Decision:
        """Ask until the answer is one of y, n, e or a."""
        if self._show:
            from rich.console import Console

            from interp.ui.render import code_panel

            Console(stderr=True).print(code_panel(proposal.language, proposal.code, "proposed"))
        _discard_typeahead(self._session)
        while True:
            try:
                answer = self._session.prompt(_QUESTION.format(language=proposal.language))
            except EOFError:
                return decline("the user closed the input", stop=True)
            answer = answer.strip().lower()
            if answer in ("y", "yes"):
                return RUN
            if answer in ("a", "always"):
                if self.state.policy is None:
                    return Decision(run=True, always=True)
                decision = self._always(proposal)
                if decision is not None:
                    return decision
            if answer in ("n", "no"):
                return decline(self._ask_reason())
            if answer in ("e", "edit"):
                return self._edit(proposal)

    def _always(self, proposal: Proposal) -> Decision | None:
        """The "always allow" menu; None (Enter) goes back to the question."""
        policy = self.state.policy
        language = proposal.language
        prefix = prefix_rule(language, proposal.code, policy.resolve)
        scopes = [("for this session", False),
                  ("from now on (saved to config.toml)", True)]
        targets = [(f"`{visible(prefix.entry)}`", prefix.entry)] if prefix.pattern else []
        targets.append((f"all {language} code", language))
        choices = [(f"{shown} {scope}", entry, save)
                   for scope, save in scopes for shown, entry in targets]
        lines = [f"  {n}) {text}" for n, (text, _, _) in enumerate(choices, 1)]
        question = ("Always allow, without asking:\n" + "\n".join(lines)
                    + f"\nWhich? [1-{len(choices)}, Enter to go back]: ")
        while True:
            try:
                answer = self._session.prompt(question).strip()
            except EOFError:
                return None
            if not answer:
                return None
            if answer.isdigit() and 1 <= int(answer) <= len(choices):
                _, entry, save = choices[int(answer) - 1]
                return Decision(run=True, allow=entry, save=save)

    def _ask_reason(self) -> str | None:
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


def task_prompt(history_path: Path | None) -> PromptSession:
    """The task prompt: history file, Esc-Enter for a new line, pasted newlines kept."""
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
    return PromptSession(history=history, key_bindings=bindings, multiline=False)
