"""The litellm adapter: any litellm-supported model, streamed through litellm within interp's
deadlines and retries (calls.py). litellm is imported on first use, through loader.py."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

from interp.models.calls import DEFAULT_MAX_TOKENS, StreamedModel
from interp.models.litellm import routes
from interp.models.litellm.chunks import is_progress, records_of
from interp.models.litellm.loader import load_litellm
from interp.models.litellm.tokens import count_tokens
from interp.models.stream import Accumulator
from interp.models.watch import Deadlines, Wire, watched

__all__ = ["DEFAULT_MAX_TOKENS", "LiteLLMModel"]


class LiteLLMModel(StreamedModel):
    """Any litellm-supported model (``provider/model``), streamed through litellm, with
    bounded retries (see StreamedModel for the settings)."""

    def __init__(self, name: str, api_base: str | None = None, api_key: str | None = None,
                 **options: Any):
        super().__init__(name, api_base, api_key, **options)
        self._provider: str | None = None

    @property
    def provider(self) -> str:
        """litellm's provider for this model ('' if unknown)."""
        if self._provider is None:
            self._provider = routes.litellm_provider(self.name, self.api_base)
        return self._provider

    def _prepare(self) -> None:
        load_litellm()  # before any deadline starts: the import takes seconds

    def _attempt(self, messages: list[dict], tools: list[dict] | None,
                 acc: Accumulator) -> Iterator[str]:
        kwargs = self._request(messages, tools)

        def start(wire: Wire):
            client = self._client()
            return load_litellm().completion(**kwargs, **({"client": client} if client else {}))

        deadlines = Deadlines(self.request_timeout, self.idle_timeout)
        for chunk in watched(start, deadlines, is_progress, _close):
            for record in records_of(chunk):
                text = acc.add(record)
                if text:
                    yield text

    def _request(self, messages: list[dict], tools: list[dict] | None) -> dict[str, Any]:
        kwargs: dict[str, Any] = dict(
            model=routes.wire_name(self.name), messages=messages, stream=True,
            api_base=self.api_base, api_key=self._key(), stream_options={"include_usage": True},
            timeout=self.request_timeout, num_retries=0, max_retries=0, drop_params=True,
        )
        if tools:
            kwargs["tools"] = tools
        cap = self.output_cap()
        if cap:
            kwargs["max_tokens"] = cap
        kwargs.update(self.params)  # extra request parameters win (temperature, max_tokens, ...)
        return kwargs

    def output_cap(self) -> int | None:
        """The max_tokens sent: the setting, clipped to the model's known output limit."""
        if not self.max_tokens:
            return None
        known = routes.max_output_tokens(self.name)
        return min(self.max_tokens, known) if known else self.max_tokens

    def _client(self) -> Any:
        """Our own HTTP client for litellm where it takes one (see transport.py)."""
        from interp.models.litellm import transport

        if self.provider not in transport.HANDLER_PROVIDERS and self.provider != "openai":
            return None
        key = self._key() if self.provider == "openai" else None
        if self.provider == "openai" and key is None:
            key = os.environ.get("OPENAI_API_KEY")
        return transport.client_for(self.provider, self._tracked(), self.api_base, key)

    def _cost(self, prompt: int, completion: int) -> float | None:
        """USD cost from litellm's price list, or None for unknown models."""
        try:
            costs = load_litellm().cost_per_token(model=self.name, prompt_tokens=prompt, completion_tokens=completion)
            return float(sum(costs))
        except Exception:  # unknown model / provider: litellm raises assorted types
            return None

    def supports_tools(self) -> bool:
        """Whether litellm says the model supports function calling (False if unknown)."""
        return bool(self.tool_support())

    def tool_support(self) -> bool | None:
        """Whether litellm says the model supports function calling; None if it does not know."""
        return routes.tool_support(self.name)

    def supports_vision(self) -> bool:
        """Whether litellm says the model accepts images (False if unknown)."""
        try:
            return bool(load_litellm().supports_vision(model=self.name))
        except Exception:  # unknown model: litellm raises assorted types
            return False

    def context_window(self) -> int | None:
        """Maximum input tokens from litellm's model map, or None if unknown."""
        value = (routes.model_info(self.name) or {}).get("max_input_tokens")
        return value if isinstance(value, int) and value > 0 else None

    def count_tokens(self, messages: list[dict]) -> int:
        """Token count via litellm's tokenizer, falling back to JSON length / 4."""
        return count_tokens(self.name, messages)


def _close(response: Any) -> None:
    """Release the HTTP connection behind a litellm stream (it has no sync close of its own)."""
    for target in (response, getattr(response, "completion_stream", None)):
        close = getattr(target, "close", None)
        if callable(close):
            with contextlib.suppress(Exception):
                close()
