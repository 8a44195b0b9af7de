"""A model interp reaches with its own client: the request built by the protocol's module
(openai.py, anthropic.py, gemini.py, ollama.py, azure.py), POSTed over the tracked client,
the reply read as stream records. What is known of the model comes from litellm's model map
read without litellm (modelmap.py), and for Ollama from the server itself."""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Iterator
from typing import Any

from interp.models import modelmap
from interp.models.calls import Refused, StreamedModel
from interp.models.litellm.loader import loaded, preload_in_background
from interp.models.litellm.tokens import count_tokens
from interp.models.providers import Provider
from interp.models.stream import Accumulator, is_progress
from interp.models.watch import Deadlines, Wire, watched
from interp.models.wire import route
from interp.models.wire.http import ChunkStream, WireError, post

REFUSED = (400, 422)  # a hosted provider refused the shape of interp's request


class WireModel(StreamedModel):
    """A model whose protocol interp speaks itself (`provider` is its row of the provider
    table; see StreamedModel for the settings). With `refusable`, a 400 or 422 to the very
    first request raises Refused, for litellm to take over (handover.py)."""

    direct = True

    def __init__(self, name: str, provider: Provider, api_base: str | None = None,
                 api_key: str | None = None, *, refusable: bool = False, **options: Any):
        super().__init__(name, api_base, api_key, **options)
        self.row, self.protocol = provider, provider.protocol or "openai"
        self.refusable, self._answered_once = refusable, False
        self._capabilities: frozenset[str] | None | bool = False  # False: not asked yet

    @property
    def provider(self) -> str:
        """litellm's name for the model's provider."""
        return self.row.litellm_name

    def _attempt(self, messages: list[dict], tools: list[dict] | None,
                 acc: Accumulator) -> Iterator[str]:
        wire = route.module(self.protocol)
        build = (functools.partial(wire.hosted_request, self.row) if self.row.host
                 else wire.request)
        request = build(route.bare(self.name), self.api_base, self._key(), messages, tools,
                        self.output_cap(), self.params)

        def start(_: Wire):
            return ChunkStream(post(self._tracked(), request), wire.chunks)

        deadlines = Deadlines(self.request_timeout, self.idle_timeout)
        for record in watched(start, deadlines, is_progress, _close):
            text = acc.add(record)
            if text:
                yield text

    def _check_refusal(self, exc: Exception, acc: Accumulator) -> None:
        if (self.refusable and not self._answered_once and not acc.chunks
                and isinstance(exc, WireError) and exc.status_code in REFUSED):
            raise Refused(exc, self._detail(exc))

    def _answered(self) -> None:
        self._answered_once = True

    def output_cap(self) -> int | None:
        """The max_tokens sent: the setting, clipped to the model's known output limit."""
        if not self.max_tokens:
            return None
        known = modelmap.limit(self.name, "max_output_tokens", "max_tokens")
        return min(self.max_tokens, known) if known else self.max_tokens

    def _cost(self, prompt: int, completion: int) -> float | None:
        return modelmap.cost(self.name, prompt, completion)

    def supports_tools(self) -> bool:
        """Whether litellm's model map says the model supports function calling (False if unknown)."""
        return bool(self.tool_support())

    def tool_support(self) -> bool | None:
        """Whether litellm's model map (for an Ollama model it lacks: the Ollama server) says
        the model supports function calling; None if neither knows."""
        host = self.row.host
        if host and host.tools is not None:  # the provider's default, as litellm's
            found = (modelmap.entry(self.name) or {}).get("supports_function_calling")
            return host.tools if found is None else bool(found)
        known = modelmap.tool_support(self.name)
        served = self._served() if known is None else None
        if served is not None:
            self.tool_source = "the Ollama server"
            return "tools" in served
        return known

    def _served(self) -> frozenset[str] | None:
        """An Ollama server's own word on the model's capabilities, asked once."""
        if self.protocol != "ollama":
            return None
        if self._capabilities is False:
            from interp.models.wire import ollama

            self._capabilities = ollama.capabilities(
                self._tracked(), route.bare(self.name), self.api_base, self._api_key)
        return self._capabilities

    def supports_vision(self) -> bool:
        """Whether litellm's model map (or the Ollama server) says the model accepts images."""
        found = (modelmap.entry(self.name) or {}).get("supports_vision")
        return bool(found) if found is not None else "vision" in (self._served() or ())

    def context_window(self) -> int | None:
        """Maximum input tokens from litellm's model map, or None if unknown."""
        return modelmap.limit(self.name, "max_input_tokens")

    def count_tokens(self, messages: list[dict]) -> int:
        """Token count via litellm's tokenizer once litellm has loaded in the background (never
        waited for); until then JSON length / 4."""
        if not loaded():
            preload_in_background()
            return len(json.dumps(messages, default=str)) // 4
        return count_tokens(self.name, messages)


def _close(response: Any) -> None:
    """Release the connection behind a reply's stream."""
    with contextlib.suppress(Exception):
        response.close()
