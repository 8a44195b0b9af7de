"""Events a Session streams, one frozen dataclass per type; `--json` prints each as one line
(`to_dict`), README's "JSON output" table lists them (tests/interp/core/test_events.py checks
that the three agree)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from languages.records import Outcome

from interp.core.text import clean


class UnknownEvent(ValueError):
    """An event type that is not one of TYPES (a typo, or a type renamed in one place only)."""


@dataclass(frozen=True, kw_only=True)
class Event:
    """One thing that happened in a session; its strings are made encodable
    (interp/core/text.py), so every front end can show them."""

    type: ClassVar[str] = ""
    json: ClassVar[bool] = True  # printed by --json
    omitted_unset: ClassVar[frozenset[str]] = frozenset()  # fields left out while at their default

    def __post_init__(self) -> None:
        for item in fields(self):
            object.__setattr__(self, item.name, clean(getattr(self, item.name)))

    def to_dict(self) -> dict[str, Any]:
        """The JSON Lines form: {"type": ..., field: value, ...} in the fields' order."""
        return {"type": self.type, **self.body()}

    def body(self) -> dict[str, Any]:
        """The fields as a dict (the JSON form without `type`)."""
        return {item.name: getattr(self, item.name) for item in fields(self)
                if item.name not in self.omitted_unset or getattr(self, item.name) != item.default}


@dataclass(frozen=True, kw_only=True)
class SessionStarted(Event):
    """The first event of a session."""

    type: ClassVar[str] = "session.started"
    session_id: str | None
    model: str = ""
    cwd: str = ""
    resumed: bool = False
    instructions: list[str] = field(default_factory=list)  # the AGENTS.md files, in prompt order


@dataclass(frozen=True, kw_only=True)
class ModelRequest(Event):
    """Right before each model call (for a status line)."""

    type: ClassVar[str] = "model.request"
    turn: int
    model: str


@dataclass(frozen=True, kw_only=True)
class MessageDelta(Event):
    """Streamed text, for live display; not printed by --json."""

    type: ClassVar[str] = "message.delta"
    json: ClassVar[bool] = False
    text: str


@dataclass(frozen=True, kw_only=True)
class Message(Event):
    """The model's reply, once it has all arrived."""

    type: ClassVar[str] = "message"
    role: str = "assistant"
    text: str
    final: bool
    blocks: list[dict[str, Any]] = field(default_factory=list)  # fenced blocks run or reported


@dataclass(frozen=True, kw_only=True)
class BlockProposed(Event):
    """A block the model proposed, before the approver is asked."""

    type: ClassVar[str] = "block.proposed"
    index: int
    language: str
    code: str


@dataclass(frozen=True, kw_only=True)
class BlockApproved(Event):
    """A block about to run."""

    type: ClassVar[str] = "block.approved"
    index: int
    language: str
    code: str  # what runs
    edited: bool


@dataclass(frozen=True, kw_only=True)
class BlockDeclined(Event):
    """A block that does not run."""

    type: ClassVar[str] = "block.declined"
    omitted_unset: ClassVar[frozenset[str]] = frozenset({"policy"})
    index: int
    reason: str | None
    policy: bool = False  # an approval rule refused it (only then in the JSON line)


@dataclass(frozen=True, kw_only=True)
class BlockOutput(Event):
    """A chunk of what a running block printed."""

    type: ClassVar[str] = "block.output"
    index: int
    text: str  # a chunk, as produced


@dataclass(frozen=True, kw_only=True)
class BlockDisplay(Event):
    """A figure or rich value the block showed (before block.finished)."""

    type: ClassVar[str] = "block.display"
    index: int
    kind: str = ""
    text: str = ""
    path: str | None = None
    data: Any = None


@dataclass(frozen=True, kw_only=True)
class BlockFiles(Event):
    """Files the block created, modified or deleted (before block.finished)."""

    type: ClassVar[str] = "block.files"
    index: int
    created: list[str]
    modified: list[str]
    deleted: list[str]
    text: str = ""


@dataclass(frozen=True, kw_only=True)
class BlockBackground(Event):
    """Processes the block left running (before block.finished)."""

    type: ClassVar[str] = "block.background"
    index: int
    processes: list[dict[str, Any]]


@dataclass(frozen=True, kw_only=True)
class BlockFinished(Outcome, Event):
    """How a block ended: its Outcome (languages/records.py), then the rest."""

    type: ClassVar[str] = "block.finished"
    index: int
    truncated: bool = False
    omitted_chars: int = 0
    spool_path: str | None = None
    duration: float = 0.0
    summary: str = ""

    @classmethod
    def of(cls, index: int, record) -> BlockFinished:
        """The event for a block's record (interp/core/blocks.py)."""
        return cls(index=index, **{name: getattr(record, name) for name in _FINISHED_FIELDS})


@dataclass(frozen=True, kw_only=True)
class TurnCompleted(Event):
    """A model call's tokens and cost."""

    type: ClassVar[str] = "turn.completed"
    turn: int
    usage: dict[str, int] | None = None  # prompt_tokens, completion_tokens
    cost: float | None = None


@dataclass(frozen=True, kw_only=True)
class Notice(Event):
    """One line for the person."""

    type: ClassVar[str] = "notice"
    omitted_unset: ClassVar[frozenset[str]] = frozenset({"kind", "check"})
    level: str  # info | warning | error
    text: str
    kind: str | None = None  # a model error's kind (only then in the JSON line)
    check: str | None = None  # the reply check that asked the model (only then in the JSON line)


@dataclass(frozen=True, kw_only=True)
class ModelRetry(Event):
    """A failed model call is retried."""

    type: ClassVar[str] = "model.retry"
    attempt: int = 1
    max_attempts: int | None = None
    delay: float = 0
    reason: str = ""
    text: str
    restart: bool = False


@dataclass(frozen=True, kw_only=True)
class ModelHandedOver(Event):
    """A provider refused interp's own request: its calls go through litellm from now on."""

    type: ClassVar[str] = "model.handed_over"
    provider: str
    status: int | None = None
    detail: str = ""
    text: str


@dataclass(frozen=True, kw_only=True)
class ContextCompacting(Event):
    """The model is asked for a summary."""

    type: ClassVar[str] = "context.compacting"
    auto: bool
    messages: int
    focus: str | None


@dataclass(frozen=True, kw_only=True)
class ContextCompacted(Event):
    """The earlier conversation was replaced by the summary."""

    type: ClassVar[str] = "context.compacted"
    auto: bool
    summarized: int
    kept: int
    tokens_before: int
    window: int | None
    focus: str | None
    attempts: int
    tokens_after: int


@dataclass(frozen=True, kw_only=True)
class TaskFinished(Event):
    """The task's end."""

    type: ClassVar[str] = "task.finished"
    omitted_unset: ClassVar[frozenset[str]] = frozenset({"answer", "structured_output"})
    exit_code: int
    reason: str
    answer: str | None = None  # the final answer's text (None: the task ended without one)
    structured_output: Any = None  # --output-schema: the answer's JSON value, once valid


@dataclass(frozen=True, kw_only=True)
class SessionFinished(Event):
    """The last event of a session."""

    type: ClassVar[str] = "session.finished"
    session_id: str | None
    exit_code: int


EVENTS: tuple[type[Event], ...] = (
    SessionStarted, ModelRequest, MessageDelta, Message, BlockProposed, BlockApproved,
    BlockDeclined, BlockOutput, BlockDisplay, BlockFiles, BlockBackground, BlockFinished,
    TurnCompleted, Notice, ModelRetry, ModelHandedOver, ContextCompacting, ContextCompacted, TaskFinished,
    SessionFinished,
)
BY_TYPE: dict[str, type[Event]] = {kind.type: kind for kind in EVENTS}
TYPES = frozenset(BY_TYPE)
JSON_HIDDEN = frozenset(kind.type for kind in EVENTS if not kind.json)
_FINISHED_FIELDS = tuple(f.name for f in fields(BlockFinished) if f.name != "index")

# The type names, for code that compares or builds by name.
SESSION_STARTED = SessionStarted.type
MODEL_REQUEST = ModelRequest.type
MESSAGE_DELTA = MessageDelta.type
MESSAGE = Message.type
BLOCK_PROPOSED = BlockProposed.type
BLOCK_APPROVED = BlockApproved.type
BLOCK_DECLINED = BlockDeclined.type
BLOCK_OUTPUT = BlockOutput.type
BLOCK_DISPLAY = BlockDisplay.type
BLOCK_FILES = BlockFiles.type
BLOCK_BACKGROUND = BlockBackground.type
BLOCK_FINISHED = BlockFinished.type
TURN_COMPLETED = TurnCompleted.type
NOTICE = Notice.type
MODEL_RETRY = ModelRetry.type
MODEL_HANDED_OVER = ModelHandedOver.type
CONTEXT_COMPACTING = ContextCompacting.type
CONTEXT_COMPACTED = ContextCompacted.type
TASK_FINISHED = TaskFinished.type
SESSION_FINISHED = SessionFinished.type


def event(kind: str, /, **data: Any) -> Event:
    """The event of type name `kind` with these fields (`kind` is positional-only, so `data`
    may hold a "kind" field). UnknownEvent when kind is not one of TYPES."""
    if kind not in BY_TYPE:
        raise UnknownEvent(f"unknown event type {kind!r}")
    return BY_TYPE[kind](**data)


def display_event(index: int, display) -> BlockDisplay:
    """The block.display event for a runner's Display."""
    return BlockDisplay(index=index, kind=display.kind, text=display.text, path=display.path,
                        data=display.data)
