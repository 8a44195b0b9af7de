"""`interp acp`: interp as an agent of the Agent Client Protocol (Zed, JetBrains IDEs, Neovim),
on the `agent-client-protocol` SDK (imported only by `interp acp`).

Each method answers the editor or raises one RequestError that says what was wrong; nothing
the editor sends leaves a traceback (with --debug, one goes to stderr) or a wait without a
bound. A prompt's task runs in a worker thread (turn.py), so the loop keeps answering the
editor, a cancel included, while the model writes and blocks run."""

from __future__ import annotations

import functools
import os
import sys
import traceback
from collections.abc import Callable

from acp import PROTOCOL_VERSION, RequestError, update_agent_message_text
from acp.schema import (AgentCapabilities, Implementation, InitializeResponse,
                        ListSessionsResponse, LoadSessionResponse, NewSessionResponse,
                        PromptCapabilities, PromptResponse, SessionCapabilities, SessionInfo,
                        SessionListCapabilities, SetSessionConfigOptionResponse,
                        SetSessionModeResponse)

from interp import __version__
from interp.acp.config import AgentConfig, Opened
from interp.acp.history import replayed
from interp.acp.prompts import BadPrompt, task_text
from interp.acp.sessions import MODE, MODEL, AcpSession
from interp.acp.turn import Turn
from interp.acp.updates import notice_text, stop_reason
from interp.errors import UsageError
from interp.secrets import Redactor
from interp.storage.conversations import StoreError

LISTED = 100  # sessions in one page of session/list
ERROR = -32603  # JSON-RPC's internal error: interp could not do what was asked


def answered(method: Callable) -> Callable:
    """A protocol method whose unexpected failures become one RequestError and one line on
    stderr (a traceback only with --debug)."""
    @functools.wraps(method)
    async def wrapper(self: InterpAgent, *args, **kwargs):
        try:
            return await method(self, *args, **kwargs)
        except RequestError:
            raise
        except Exception as exc:
            if self.config.debug:
                traceback.print_exception(exc)
            text = self.scrub(f"unexpected error: {type(exc).__name__}: {exc}")
            self.say(text + ("" if self.config.debug else " (run with --debug for details)"))
            raise RequestError(ERROR, text) from None
    return wrapper


class InterpAgent:
    """The agent side: sessions by id, each with its own runners and rules."""

    def __init__(self, config: AgentConfig) -> None:
        self.config = config
        self.client = None  # the connection to the editor (on_connect)
        self.client_name = "an ACP client"
        self.sessions: dict[str, AcpSession] = {}
        self._redactor = Redactor(config.secrets)

    def on_connect(self, conn) -> None:
        self.client = conn

    def say(self, text: str) -> None:
        """One line for the person, in the editor's log of the agent (stderr)."""
        sys.stderr.write(f"interp acp: {text}\n")
        sys.stderr.flush()

    def scrub(self, text: str) -> str:
        return self._redactor.walk(text)

    # -- the connection --------------------------------------------------------------------
    @answered
    async def initialize(self, protocol_version: int, client_capabilities=None,
                         client_info=None, **kwargs) -> InitializeResponse:
        if client_info is not None and getattr(client_info, "name", None):
            self.client_name = client_info.title or client_info.name
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(embedded_context=True),
                session_capabilities=SessionCapabilities(list=SessionListCapabilities())),
            agent_info=Implementation(name="interp", title="interp", version=__version__))

    async def authenticate(self, method_id: str, **kwargs) -> None:
        raise RequestError(-32602, f"interp has no authentication methods (asked for "
                                   f"{method_id!r}); set the model's key in the environment")

    # -- sessions --------------------------------------------------------------------------
    @answered
    async def new_session(self, cwd: str, mcp_servers=None, additional_directories=None,
                          **kwargs) -> NewSessionResponse:
        held = self._held()
        self._open(held, lambda: self.config.conversations.new(_folder(cwd), held.approver))
        return NewSessionResponse(session_id=held.id, modes=held.modes(),
                                  config_options=held.config_options())

    @answered
    async def load_session(self, cwd: str, session_id: str, mcp_servers=None,
                           additional_directories=None, **kwargs) -> LoadSessionResponse:
        held = self.sessions.get(session_id)
        if held is None:  # else open here already: shown again as it is
            held = self._held()
            self._open(held, lambda: self.config.conversations.load(
                session_id, _folder(cwd), held.approver), key=session_id)
        elif held.busy:
            raise RequestError(-32602, f"session {session_id} is running a prompt here")
        for update in replayed(held.session.messages):
            await self.client.session_update(session_id=session_id, update=update)
        return LoadSessionResponse(modes=held.modes(), config_options=held.config_options())

    @answered
    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None,
                            **kwargs) -> ListSessionsResponse:
        start = int(cursor) if cursor and cursor.isdigit() else 0
        try:
            infos = self.config.store.list(cwd)
        except StoreError as exc:
            raise RequestError(ERROR, str(exc)) from None
        page = infos[start:start + LISTED]
        more = str(start + LISTED) if len(infos) > start + LISTED else None
        return ListSessionsResponse(next_cursor=more, sessions=[
            SessionInfo(session_id=info.id, cwd=info.cwd or "", title=info.title or None,
                        updated_at=info.updated.isoformat()) for info in page])

    @answered
    async def set_session_mode(self, mode_id: str, session_id: str,
                               **kwargs) -> SetSessionModeResponse:
        held = self._session(session_id)
        _set_mode(held, mode_id)
        return SetSessionModeResponse()

    @answered
    async def set_config_option(self, config_id: str, session_id: str, value,
                                **kwargs) -> SetSessionConfigOptionResponse:
        held = self._session(session_id)
        if config_id == MODE:
            _set_mode(held, value)
        elif config_id == MODEL:
            self._set_model(held, value)
        else:
            raise RequestError(-32602, f"interp has no option {config_id!r}; its options are "
                                       f"{MODE} and {MODEL}")
        return SetSessionConfigOptionResponse(config_options=held.config_options())

    # -- turns -----------------------------------------------------------------------------
    @answered
    async def prompt(self, prompt: list, session_id: str, **kwargs) -> PromptResponse:
        held = self._session(session_id)
        if held.busy:
            raise RequestError(-32602, "a prompt is already running in this session (or "
                                       "still stopping); wait for it or cancel it")
        try:
            task = task_text(prompt)
        except BadPrompt as exc:
            raise RequestError(-32602, str(exc)) from None
        send = self._sender(session_id)
        for warning in held.untold:  # the editor's log may go unread: said in the thread once
            await send(update_agent_message_text(notice_text(f"Warning: {warning}")))
        held.untold = []
        held.turn = turn = Turn(held.session, held.cwd, send, self._asker(session_id),
                                held.policy.resolve, self.config.approval_wait,
                                self.config.stop_wait)
        ended = await turn.run(task)
        if ended.error is not None:
            raise RequestError(ERROR, self.scrub(ended.error))
        return PromptResponse(stop_reason=stop_reason(ended.code))

    async def cancel(self, session_id: str, **kwargs) -> None:
        held = self.sessions.get(session_id)
        if held is not None and held.turn is not None:
            held.turn.cancel()

    def close(self) -> None:
        """The editor has gone: every session's runners stop (their conversations stay)."""
        for held in self.sessions.values():
            held.close()
        self.sessions.clear()

    # -- helpers ---------------------------------------------------------------------------
    def _held(self) -> AcpSession:
        return AcpSession(self.config.policy(), self.config.auto_approve, self.config.models)

    def _open(self, held: AcpSession, opening: Callable[[], Opened], key: str | None = None
              ) -> None:
        """Open a conversation for `held` and keep it under `key` (default: its id); the
        start's notices and warnings go to the log."""
        try:
            opened = opening()
        except (UsageError, StoreError, ValueError) as exc:
            raise RequestError(ERROR, self.scrub(str(exc).removeprefix("interp: "))) from None
        held.session, held.cwd = opened.session, opened.session.config.runner.cwd or os.getcwd()
        held.untold = list(opened.warnings)
        self.sessions[key or held.id] = held
        for line in (*opened.notices, *(f"warning: {w}" for w in opened.warnings)):
            self.say(f"{held.id}: {line}")

    def _session(self, session_id: str) -> AcpSession:
        held = self.sessions.get(session_id)
        if held is None:
            raise RequestError(-32602, f"there is no session {session_id!r} (new_session or "
                                       f"load_session first)")
        return held

    def _set_model(self, held: AcpSession, name) -> None:
        names = [option.value for option in held.config_options()[1].options]
        if name not in names:
            raise RequestError(-32602, f"model {name!r} is not one of {', '.join(names)} "
                                       f"(more go in the models setting)")
        try:
            model, note = self.config.conversations.switch_model(name)
        except (UsageError, ValueError) as exc:
            raise RequestError(ERROR, self.scrub(str(exc))) from None
        held.session.model = model
        if note:
            self.say(f"{held.id}: {note}")

    def _sender(self, session_id: str):
        async def send(update) -> None:
            await self.client.session_update(session_id=session_id, update=update)
        return send

    def _asker(self, session_id: str):
        async def ask(asked):
            response = await self.client.request_permission(
                session_id=session_id, tool_call=asked.tool_call, options=list(asked.options))
            return response.outcome
        return ask


def _set_mode(held: AcpSession, mode) -> None:
    try:
        held.set_mode(mode)
    except ValueError as exc:
        raise RequestError(-32602, str(exc)) from None


def _folder(cwd: str) -> str:
    """The session's working folder: an absolute path to a folder that exists."""
    if not isinstance(cwd, str) or not os.path.isabs(cwd):
        raise RequestError(-32602, f"the working folder must be an absolute path, not {cwd!r}")
    if not os.path.isdir(cwd):
        raise RequestError(-32602, f"the working folder {cwd} does not exist or is not a "
                                   f"folder")
    return cwd
