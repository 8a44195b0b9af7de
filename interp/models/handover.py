"""A provider interp speaks to with its own client, handed to litellm if it refuses the
shape of interp's very first request (a hosted OpenAI-compatible provider or an Azure
deployment: litellm knows more of their quirks)."""

from __future__ import annotations

from collections.abc import Iterator

from interp.models.base import HandedOver, Reply, Retrying
from interp.models.calls import Refused
from interp.models.litellm.model import LiteLLMModel
from interp.models.wire.model import WireModel


class HandOver:
    """The Model protocol over `first` (interp's own client) until it is refused, then over
    `then` (litellm) for good; the stream says so once, with a HandedOver."""

    def __init__(self, first: WireModel, then: LiteLLMModel) -> None:
        self.first, self.then = first, then
        self.current: WireModel | LiteLLMModel = first

    def __repr__(self) -> str:
        return f"HandOver({self.first!r}, {self.then!r})"

    @property
    def params(self) -> dict:
        """Extra request parameters, e.g. temperature (set on both clients)."""
        return self.current.params

    @params.setter
    def params(self, value: dict) -> None:
        self.first.params = self.then.params = dict(value)

    def __getattr__(self, name: str):
        return getattr(self.current, name)  # name, api_base, params, provider, direct, ...

    def stream(self, messages: list[dict],
               tools: list[dict] | None = None) -> Iterator[str | Retrying | HandedOver | Reply]:
        """The current model's stream; after a refusal, a HandedOver and litellm's stream."""
        if self.current is self.then:
            yield from self.then.stream(messages, tools)
            return
        try:
            yield from self.first.stream(messages, tools)
            return
        except Refused as refused:
            yield self._hand_over(refused)
        yield from self.then.stream(messages, tools)

    def _hand_over(self, refused: Refused) -> HandedOver:
        name, status = self.first.provider, refused.error.status_code
        self.current = self.then
        return HandedOver(name, status, refused.detail,
                          f"{name} refused interp's own request ({status}: "
                          f"{refused.detail[:120]}); sending it through litellm")

    def supports_tools(self) -> bool:
        """Whether the model supports function calling (the current client's word)."""
        return self.current.supports_tools()

    def supports_vision(self) -> bool:
        """Whether the model accepts images (the current client's word)."""
        return self.current.supports_vision()

    def context_window(self) -> int | None:
        """Maximum input tokens, or None if unknown (the current client's word)."""
        return self.current.context_window()

    def count_tokens(self, messages: list[dict]) -> int:
        """Tokens of `messages` (the current client's count)."""
        return self.current.count_tokens(messages)
