"""What the loop needs from a model: the Model protocol and the records a call returns."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import urlparse

LOCAL = "local"  # the model name of the local llama.cpp model (`--local`, `model = "local"`)
KINDS = frozenset({"auth", "not_found", "connection", "rate_limit", "server", "timeout", "bad_request", "other"})



@dataclass(frozen=True)
class ToolCall:
    """One function call requested by the model; ``arguments`` is the raw JSON string."""
    id: str
    name: str
    arguments: str



@dataclass(frozen=True)
class Usage:
    """Token counts for one reply; ``cost`` in USD when litellm knows the model's price."""
    prompt_tokens: int
    completion_tokens: int
    cost: float | None



# interp's own finish reason for a reply it stopped because it was repeating itself
REPEATING = "repeating"
# the finish reasons of a reply that did not end by itself: it ran on to the output limit
# ("length"), or it was stopped repeating itself
RAN_ON = frozenset({"length", REPEATING})


@dataclass(frozen=True)
class Reply:
    """A complete model reply, yielded last by ``Model.stream``."""
    text: str
    tool_calls: tuple[ToolCall, ...]
    usage: Usage | None
    finish_reason: str | None

    @property
    def ran_on(self) -> bool:
        """Whether the reply did not end by itself (see RAN_ON): its last block is unfinished."""
        return self.finish_reason in RAN_ON



@dataclass(frozen=True)
class Retrying:
    """A failed attempt about to be retried; ``Model.stream`` yields it before it waits."""
    attempt: int  # the retry about to be made: 1 for the first retry
    max_attempts: int | None  # the most retries that will be made (None: bounded by time only)
    delay: float  # seconds until the retry
    reason: str  # the error kind (see KINDS)
    text: str  # one line for the user, e.g. "rate limited, retry 1 of 5 in 4 s"
    restart: bool = False  # text already streamed for this reply is void: the reply starts over



@dataclass(frozen=True)
class HandedOver:
    """A provider refused interp's own first request, and the call goes through litellm from
    now on; ``Model.stream`` yields it before the call is made again."""
    provider: str  # litellm's name for the provider
    status: int  # the refusal's HTTP status (400 or 422)
    detail: str  # the first line of the provider's error text
    text: str  # one line for the user



class ModelError(Exception):
    """A failed model call: ``kind`` classifies it, ``str()`` is a one-line hint for the user."""

    def __init__(self, kind: str, message: str, *, detail: str = "", partial: str = "", attempts: int = 1):
        super().__init__(message)
        self.kind = kind if kind in KINDS else "other"
        self.message, self.detail, self.partial, self.attempts = message, detail, partial, attempts



def declared_sampling(model, kind: str) -> dict | None:
    """The request parameters a model declares for calls of `kind` ("retry": asked again
    after proposing failed code; "runaway": after running on inside a block; "fresh": a reply
    that must not depend on the requests before it), as its `KIND_sampling` attribute
    (LocalModel declares all three), or None."""
    sampling = getattr(model, f"{kind}_sampling", None)
    return dict(sampling) if isinstance(sampling, dict) and sampling else None


@dataclass(frozen=True)
class Slot:
    """A slot of an answer's template: its start as the task writes it (`@mean[`) and, where
    the task lists them, the values it may take."""
    start: str
    choices: tuple[str, ...] = ()


def template_sampling(model, slots: tuple[Slot, ...]) -> dict | None:
    """The request parameters that hold a model's next reply to a template's slots (`@mean[`
    and so on, one a line, each closed by `]` after its value, one of its choices where it
    has them), as its `template_sampling` method gives them (LocalModel: a llama.cpp
    grammar), or None."""
    hold = getattr(model, "template_sampling", None)
    sampling = hold(slots) if callable(hold) and slots else None
    return dict(sampling) if isinstance(sampling, dict) and sampling else None


class Model(Protocol):
    """What the conversation loop needs from a language model."""

    name: str

    def stream(self, messages: list[dict], tools: list[dict] | None = None) -> Iterator[str | Retrying | HandedOver | Reply]: ...
    def supports_tools(self) -> bool: ...
    def supports_vision(self) -> bool: ...
    def context_window(self) -> int | None: ...
    def count_tokens(self, messages: list[dict]) -> int: ...


def runs_here(model) -> bool:
    """Whether a model runs on this machine (`--local`, Ollama, any endpoint on loopback):
    the small models interp's checks were measured on."""
    if getattr(model, "one_block_per_reply", False):  # interp's own --local model
        return True
    name = str(getattr(model, "name", "")).lower()
    if name.startswith(("ollama/", "ollama_chat/")) and not getattr(model, "api_base", None):
        return True
    host = urlparse(str(getattr(model, "api_base", "") or "")).hostname or ""
    return host in ("localhost", "127.0.0.1", "::1") or host.startswith("127.")
