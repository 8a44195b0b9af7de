"""One MCP client's state: its own runners (kept between calls, stopped when its session ends),
its block numbers, its approval rules and its saved conversation.

`run` is synchronous and runs in a worker thread; `interrupt` may be called from any thread.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from languages import Output, Result, RunnerError
from languages.records import CapturedOutput, image_paths

from interp.approval.decision import ApprovalState, Approver, Decision, Proposal
from interp.approval.policy import Policy
from interp.core import blocks
from interp.core.files import workspace
from interp.core.history import Entry
from interp.core.replies.report import report_messages
from interp.mcp.config import ServerConfig
from interp.mcp.tools import RunCode
from interp.storage.conversations import StoreError

STOP_WAIT = 5.0  # seconds closing waits for an interrupted block to end before killing it


class SessionEnded(RunnerError):
    """The client's session has ended: nothing more runs for it."""


@dataclass(frozen=True)
class Ran:
    """What became of one run_code call: the block's record, a line for the person (an allow
    rule added), if any, and notes for the client's model (checkpoints that could not be
    taken, what hooks said)."""

    record: blocks.BlockRecord
    notice: str | None = None
    session_id: str | None = None
    notes: tuple[str, ...] = ()


class ClientState:
    """The runners and conversation of one MCP session (connection)."""

    def __init__(self, config: ServerConfig, client: str) -> None:
        self.config = config
        self.client = client
        self.policy: Policy = config.policy()
        self.approval = ApprovalState(auto=config.auto_approve or self.policy.mode == "auto",
                                      policy=self.policy)
        self._runners: dict[str, object] = {}
        self._lock = threading.Lock()  # guards _runners, _current and _closed
        self._idle = threading.Condition(self._lock)  # notified when a run ends
        self._current = None  # the runner of the block that is running
        self._closed = False
        self._block = 0
        self._log = None
        self._log_failed = False
        self.hooks = config.hooks(self.approval) if config.hooks is not None else None
        if self.hooks is not None:
            from interp.hooks.payloads import Where
            from interp.hooks.session import transcript

            cwd = config.runner.cwd or os.getcwd()
            self.hooks.where = lambda: Where(self.id, transcript(self._log), cwd,
                                             self.approval.mode)
        self._checkpoints = None  # interp.checkpoints: made at the first block
        self._notes: list[str] = []  # for the client's model with this call's result
        self._started = False  # the SessionStart hooks ran

    # -- what checkpoints and hooks ask of a session ---------------------------------------
    @property
    def id(self) -> str | None:
        """The saved conversation's id (None before the first block)."""
        return self._log.id if self._log is not None else None

    @property
    def log(self):
        return self._log

    @property
    def registry(self):
        return self.config.registry

    # -- running a block (in a worker thread) ---------------------------------------------
    def run(self, request: RunCode, approver: Approver,
            on_output: Callable[[str], None] = lambda text: None) -> Ran:
        """Approve and run one block; its record is saved with the conversation."""
        self._block += 1
        index, call_id = self._block, f"mcp-{self._block}"
        self._open_log()
        self._notes = self._session_start()
        try:
            decision = approver(Proposal(index, request.language, request.code))
        except Exception as exc:  # an approver that fails must not let the block through
            decision = Decision(run=False, reason=f"the approval could not be asked ({exc})")
        if decision.run:
            result, files = self._execute(index, request, on_output)
            record = blocks.ran(index, request.language, request.code, result, files=files,
                                python=None if result.ok else self._python(request.language),
                                call_id=call_id)
            self._after(record)
        else:
            status = "denied" if decision.policy else "declined"
            record = blocks.not_run(index, request.language, request.code, status,
                                    decision.reason, call_id=call_id)
        self._save(record, request)
        return Ran(record, decision.notice, self.id, tuple(self._notes))

    def _session_start(self) -> list[str]:
        """The SessionStart hooks, at the client's first block: what they say goes to its
        model with that block's result."""
        if self._started or self.hooks is None:
            return []
        self._started = True
        context, said = self.hooks.session_start("startup")
        for notice in said:
            sys.stderr.write(f"interp mcp: {notice.text}\n")
        return context

    def _after(self, record: blocks.BlockRecord) -> None:
        """The PostToolUse hooks: what they say back goes with the result."""
        if self.hooks is not None:
            after = self.hooks.after_block(record)
            for notice in after.notices:
                sys.stderr.write(f"interp mcp: {notice.text}\n")
            self._notes += after.told

    def _execute(self, index: int, request: RunCode, on_output: Callable[[str], None]
                 ) -> tuple[Result, blocks.FileChanges | None]:
        root = self.config.runner.cwd or os.getcwd()
        store = self.config.store
        own = workspace.own_folders(store.root.parent if store is not None else None)
        before = workspace.snapshot(root, skip=own)
        guard = self._guard()
        if guard is not None:
            self._note(guard.before_block(self, index, request.language, before))
        result = runner = None
        try:
            runner = self._runner(request.language)
            for item in runner.run(request.code, request.timeout, block=index):
                if isinstance(item, Output):
                    on_output(item.text)
                elif isinstance(item, Result):
                    result = item
        except RunnerError as exc:
            result = _failed(str(exc))
        finally:
            with self._lock:
                self._current, closed = None, self._closed
                self._idle.notify_all()
            if closed and runner is not None:  # the session ended meanwhile: a runner that
                runner.stop()  # restarted itself after the kill goes too
        if result is None:
            result = _failed("the runner ended without a result")
        after = workspace.snapshot(root, skip=own)
        if guard is not None:
            self._note(guard.after_block(self, index, after))
        changes = workspace.changes(before, after).without(image_paths(result.displays), root)
        files = None
        if changes:
            files = blocks.FileChanges(tuple(changes.created), tuple(changes.modified),
                                       tuple(changes.deleted), workspace.describe(changes, root))
        return result, files

    def _guard(self):
        """The client's checkpoints (interp.checkpoints), made at its first block; None when
        they are off or nothing is saved."""
        store = self.config.store
        if self._checkpoints is None and self.config.checkpoints and store is not None:
            from interp.checkpoints.recorder import Checkpoints

            self._checkpoints = Checkpoints(store.root.parent / "checkpoints",
                                            self.config.runner.cwd or os.getcwd(), store.root)
        return self._checkpoints

    def _note(self, lines: list[str]) -> None:
        """Checkpoint lines: on the server's stderr, and for the client's model."""
        for line in lines:
            sys.stderr.write(f"interp mcp: warning: {line}\n")
        self._notes += lines

    def _runner(self, language: str):
        """The language's runner, started (and kept) on first use; it is `_current` on return."""
        spool = self._spool_dir()
        with self._lock:
            if self._closed:
                raise SessionEnded("the MCP session has ended")
            runner = self._runners.get(language)
            if runner is None:
                config = replace(self.config.runner, timeout=self.config.timeout,
                                 spool_dir=spool)
                runner = self._runners[language] = self.config.registry.create(language, config)
            self._current = runner
        runner.start()  # a no-op once it runs; a fresh start is slow, so outside the lock
        return runner

    def _python(self, language: str) -> str | None:
        """The interpreter of the Python runner (for install hints), else None."""
        runner = self._runners.get(language)
        try:
            return runner.executable() if getattr(runner, "name", None) == "python" else None
        except Exception:  # a hint is never worth an error
            return None

    # -- control (any thread) -------------------------------------------------------------
    def interrupt(self) -> str | None:
        """Interrupt the running block; its language, or None when nothing runs."""
        with self._lock:
            runner = self._current
        if runner is None:
            return None
        runner.interrupt()
        return getattr(runner, "name", None) or "the"

    def reset(self, language: str | None = None) -> list[str]:
        """Stop one language's runner (None: every runner); the next block starts afresh.
        Returns the languages whose state was lost."""
        with self._lock:
            chosen = [name for name in self._runners if language in (None, name)]
            runners = [self._runners.pop(name) for name in chosen]
        for runner in runners:
            runner.stop()
        if chosen and self._log is not None:
            self._write(lambda log: log.append_event("runners.reset", {"languages": chosen}))
        return chosen

    def running(self) -> list[str]:
        """The languages whose runners hold state in this session."""
        with self._lock:
            return list(self._runners)

    def describe(self) -> str:
        """What list_languages says: each language, what runs it and whether it holds state
        here, then the limits and the approval mode."""
        registry, runner = self.config.registry, self.config.runner
        running = self.running()
        lines = ["Languages (run_code's `language`):"]
        for name in registry.names():
            cls = registry.resolve(name)
            aliases = f" (also: {', '.join(cls.aliases)})" if cls.aliases else ""
            doc = (cls.__doc__ or "").strip().splitlines()
            state = "running, with state from earlier blocks" if name in running else "not started"
            what = doc[0].rstrip(".") if doc else f"runs {name} blocks"
            lines.append(f"- {name}{aliases}: {what}; {state}.")
        auto = self.approval.auto
        lines += ["", f"Working directory: {runner.cwd or os.getcwd()}.",
                  f"Each block may run at most {self.config.timeout:g} s (run_code's `timeout` "
                  f"can only shorten it).",
                  f"Sandbox: {runner.sandbox.describe()}. Limits: {runner.limits.describe()}.",
                  "Approval: the user's rules apply (deny, then ask, then allow); "
                  + ("blocks no rule stops run without asking." if auto else
                     "a block no rule allows needs the user's approval.")]
        return "\n".join(lines)

    def close(self) -> None:
        """End the session: interrupt the running block and let its run end (a runner is
        never stopped under a run, except past STOP_WAIT), stop every runner and every process
        it started, close the conversation file. Safe to call twice."""
        deadline = time.monotonic() + STOP_WAIT
        with self._lock:
            self._closed = True
            while self._current is not None and time.monotonic() < deadline:
                self._current.interrupt()  # again: the first may come before the run starts
                self._idle.wait(0.2)
        self._stop_runners()
        if self._checkpoints is not None:
            self._checkpoints.close()
        if self._log is not None:
            self._log.close()

    def _stop_runners(self) -> None:
        with self._lock:
            runners = list(self._runners.values())
            self._runners.clear()
        for runner in runners:
            runner.stop()

    # -- the saved conversation -----------------------------------------------------------
    def _spool_dir(self) -> str | None:
        self._open_log()
        folder = getattr(self._log, "spool_dir", None)
        return os.fspath(folder) if folder is not None else self.config.runner.spool_dir

    def _open_log(self) -> None:
        """Start the conversation file on the first block (a client that only lists tools
        leaves none behind)."""
        if self._log is not None or self._log_failed or self.config.store is None:
            return
        try:
            self._log = self.config.store.create(
                {"model": f"mcp: {self.client}", "cwd": self.config.runner.cwd or os.getcwd()},
                self.config.secrets)
            self._log.append_message(Entry({"role": "user", "content": (
                f"MCP client {self.client}: blocks run through `interp mcp`.")}))
        except StoreError as exc:
            self._log_failed = True
            sys.stderr.write(f"interp mcp: warning: the conversation is not saved: {exc}\n")

    def _save(self, record: blocks.BlockRecord, request: RunCode) -> None:
        """The block as an `execute` call and its report, as the terminal saves them, so
        `interp sessions`, `interp export` and `--resume` read it."""
        self._open_log()
        arguments = json.dumps({"language": request.language, "code": request.code})
        call = Entry({"role": "assistant", "content": None, "tool_calls": [{
            "id": record.call_id, "type": "function",
            "function": {"name": "execute", "arguments": arguments}}]})
        self._write(lambda log: [log.append_message(m) for m in [call, *report_messages([record])]])

    def _write(self, write: Callable) -> None:
        if self._log is None:
            return
        try:
            write(self._log)
        except StoreError as exc:
            sys.stderr.write(f"interp mcp: warning: the conversation is no longer saved: {exc}\n")
            self._log.close()
            self._log, self._log_failed = None, True


def _failed(message: str) -> Result:
    """The result of a block whose runner could not run it."""
    return Result(status="error", output=CapturedOutput("", "", 0, 0, 0, None), error=message)
