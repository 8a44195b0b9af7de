"""Model adapter: streams chat completions through litellm, bounded by interp's own deadlines,
with bounded retries (also after part of a reply has streamed) and one-line errors."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import time
from collections.abc import Iterator
from typing import Any

from interp.models import modelmap
from interp.models.base import ModelError, Reply, Retrying
from interp.models.errors import classify, explain
from interp.models.litellm import routes
from interp.models import stream
from interp.models.litellm.chunks import is_progress, records_of
from interp.models.litellm.loader import load_litellm, loaded, preload_in_background
from interp.models.retry import RetryPolicy, describe
from interp.models.watch import DeadlineExceeded, Deadlines, Wire, watched
from interp.models.wire import http as direct
from interp.models.wire import route

DEFAULT_MAX_TOKENS = 8192


class LiteLLMModel:
    """Any litellm-supported model (``provider/model``), streamed, with bounded retries.

    `request_timeout` bounds the wait for the first token, `idle_timeout` the wait between
    two tokens; `max_tokens` caps a reply (0: send no cap; clipped to what litellm knows the
    model can write); `params` are extra request parameters, e.g. temperature."""

    def __init__(self, name: str, api_base: str | None = None, api_key: str | None = None, *,
                 max_retry_seconds: float = 30.0, request_timeout: float = 600.0,
                 idle_timeout: float = 120.0, max_tokens: int | None = DEFAULT_MAX_TOKENS,
                 max_retries: int = 5, params: dict[str, Any] | None = None):
        self.name, self.api_base, self._api_key = name, api_base, api_key
        self.params = dict(params or {})  # extra request parameters, e.g. temperature
        self.max_retry_seconds, self.request_timeout = max_retry_seconds, request_timeout
        self.idle_timeout, self.max_tokens = idle_timeout, max_tokens
        self.retry = RetryPolicy(max_retries=max_retries, budget=max_retry_seconds)
        self._http = None  # the tracked httpx client, made on first use
        self._provider: str | None = None
        self._capabilities: frozenset[str] | None | bool = False  # False: not asked yet
        self.tool_source = "litellm"  # who said whether the model supports function calling
        row = route.provider_for(name, api_base, api_key)  # a protocol interp speaks itself
        self.protocol = row.protocol if row else None
        self.host = row if row and row.host else None
        self._row = row
        # a hosted provider whose quirks interp knows from litellm's code, not from its server:
        # if it refuses interp's first request, litellm takes over (_refused_by_host)
        self._handover = self.host is not None or self.protocol == "azure"
        self._host_answered = False  # the provider has taken interp's own request once

    def __repr__(self) -> str:
        return f"LiteLLMModel({self.name!r}, api_base={self.api_base!r})"

    @property
    def direct(self) -> bool:
        """Whether interp speaks the model's protocol itself (interp.models.wire)."""
        return self.protocol is not None

    @property
    def provider(self) -> str:
        """litellm's provider for this model ('' if unknown)."""
        if self._provider is None:
            if self.protocol and self._row:
                self._provider = self._row.litellm_name
            else:
                self._provider = routes.litellm_provider(self.name, self.api_base)
        return self._provider

    def stream(self, messages: list[dict], tools: list[dict] | None = None) -> Iterator[str | Retrying | Reply]:
        """Yield text deltas as they arrive, a Retrying before each retry, then one Reply;
        raise ModelError on failure."""
        if not self.direct:
            load_litellm()  # before any deadline starts: the import takes seconds
        retries, waited, received = 0, 0.0, ""  # received: the longest text of any attempt
        while True:
            acc = stream.Accumulator()
            try:
                yield from self._attempt(messages, tools, acc)
            except Exception as exc:  # classified below; nothing but ModelError leaves this method
                if self._refused_by_host(exc, acc):
                    yield self._hand_to_litellm(exc)
                    continue
                kind = classify(exc)
                received = acc.text if len(acc.text) > len(received) else received
                midstream = acc.started or acc.chunks > 0
                if kind == "bad_request" and acc.started:
                    kind = "server"  # an error line in the middle of a reply is not our request's fault
                delay = None
                if not isinstance(exc, DeadlineExceeded):
                    delay = self.retry.delay(kind, exc, retries, waited, midstream)
                if delay is None:
                    raise self._error(kind, exc, retries + 1, acc, received) from exc
                retries += 1
                waited += delay
                yield Retrying(retries, self.retry.max_retries, round(delay, 2), kind,
                               describe(kind, retries, self.retry.max_retries, delay, midstream),
                               restart=bool(acc.parts))
                time.sleep(delay)
                continue
            self._host_answered = True
            usage = acc.usage
            yield acc.reply(self._cost(usage.prompt_tokens or 0, usage.completion_tokens or 0) if usage else None)
            return

    def _attempt(self, messages: list[dict], tools: list[dict] | None, acc: stream.Accumulator) -> Iterator[str]:
        """One streamed request, within the deadlines; yields text deltas and fills ``acc``."""
        deadlines = Deadlines(self.request_timeout, self.idle_timeout)
        if self.protocol:
            wire = route.module(self.protocol)
            build = functools.partial(wire.hosted_request, self.host) if self.host else wire.request
            request = build(route.bare(self.name), self.api_base, self._key(), messages,
                                   tools, self.output_cap(), self.params)

            def start(_: Wire):
                return direct.ChunkStream(direct.post(self._tracked(), request), wire.chunks)

            for record in watched(start, deadlines, stream.is_progress, _close):
                text = acc.add(record)
                if text:
                    yield text
            return
        kwargs = self._request(messages, tools)

        def begin(wire: Wire):
            client = self._client()
            return load_litellm().completion(**kwargs, **({"client": client} if client else {}))

        for chunk in watched(begin, deadlines, is_progress, _close):
            for record in records_of(chunk):
                text = acc.add(record)
                if text:
                    yield text

    def _refused_by_host(self, exc: Exception, acc: stream.Accumulator) -> bool:
        """Whether a hosted provider refused the shape of interp's very first request to it
        (400 or 422 before anything streamed): then litellm, which knows more quirks, takes over."""
        return (self._handover and not self._host_answered and not acc.chunks
                and isinstance(exc, direct.WireError) and exc.status_code in (400, 422))

    def _hand_to_litellm(self, exc: direct.WireError) -> Retrying:
        """Send this model's calls through litellm from now on; the notice that says so."""
        name = self.provider
        self.protocol, self.host, self._provider, self._handover = None, None, None, False
        self._row = None
        load_litellm()
        return Retrying(1, None, 0.0, "bad_request",
                        f"{name} refused interp's own request ({exc.status_code}: "
                        f"{self._detail(exc)[:120]}); sending it through litellm")

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
        known = (modelmap.limit(self.name, "max_output_tokens", "max_tokens") if self.direct
                 else routes.max_output_tokens(self.name))
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

    def _tracked(self) -> Any:
        """The tracked httpx client of this model, made on first use."""
        from interp.models.litellm import transport

        if self._http is None:
            self._http = transport.tracked_client(self.request_timeout)
        return self._http

    def _error(self, kind: str, exc: BaseException, attempts: int, acc: stream.Accumulator,
               received: str) -> ModelError:
        if isinstance(exc, DeadlineExceeded):
            message = self._deadline_message(exc, acc)
        else:
            message = explain(self, kind, exc, attempts)
            if acc.parts:
                message += " (reply cut off)"
        return ModelError(kind, message, detail=self._detail(exc), partial=received,
                          attempts=attempts)

    def _deadline_message(self, exc: DeadlineExceeded, acc: stream.Accumulator) -> str:
        where = self.api_base or f"the {self.provider or 'model'} API"
        if exc.which == "first_token":
            return (f"No reply from {self.name} at {where} within {exc.seconds:g} s; gave up "
                    f"(--request-timeout)")
        cut = " (reply cut off)" if acc.parts else ""
        return (f"{self.name} at {where} stopped sending for {exc.seconds:g} s; gave up "
                f"(--idle-timeout){cut}")

    def _key(self) -> str | None:
        """The key to send: a placeholder for key-less OpenAI-compatible servers at --api-base."""
        if self._api_key or not self.api_base or not self.name.startswith("openai/"):
            return self._api_key
        return None if os.environ.get("OPENAI_API_KEY") else "sk-no-key-required"

    def _detail(self, exc: BaseException) -> str:
        """The first line of the provider's error text, without litellm's prefixes or the API key."""
        line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        line = re.sub(r"^(?:litellm\.\w+: )*(?:\w+Error: )?(?:\w+Exception - )?", "", line)
        return self._scrub(line[:200] or type(exc).__name__)

    def _scrub(self, text: str) -> str:
        return text.replace(self._api_key, "***") if self._api_key and len(self._api_key) >= 4 else text

    def _cost(self, prompt: int, completion: int) -> float | None:
        """USD cost from litellm's price list, or None for unknown models."""
        if self.direct:
            return modelmap.cost(self.name, prompt, completion)
        try:
            costs = load_litellm().cost_per_token(model=self.name, prompt_tokens=prompt, completion_tokens=completion)
            return float(sum(costs))
        except Exception:  # unknown model / provider: litellm raises assorted types
            return None

    def supports_tools(self) -> bool:
        """Whether litellm says the model supports function calling (False if unknown)."""
        return bool(self.tool_support())

    def tool_support(self) -> bool | None:
        """Whether litellm's model map (for an Ollama model it lacks: the Ollama server) says
        the model supports function calling; None if neither knows."""
        if not self.direct:
            return routes.tool_support(self.name)
        if self.host and self.host.host.tools is not None:  # the provider's default, as litellm's
            found = (modelmap.entry(self.name) or {}).get("supports_function_calling")
            return self.host.host.tools if found is None else bool(found)
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
            from interp.models.wire import ollama as ollama_wire

            self._capabilities = ollama_wire.capabilities(
                self._tracked(), route.bare(self.name), self.api_base, self._api_key)
        return self._capabilities

    def supports_vision(self) -> bool:
        """Whether litellm says the model accepts images (False if unknown)."""
        if self.direct:
            found = (modelmap.entry(self.name) or {}).get("supports_vision")
            return bool(found) if found is not None else "vision" in (self._served() or ())
        try:
            return bool(load_litellm().supports_vision(model=self.name))
        except Exception:  # unknown model: litellm raises assorted types
            return False

    def context_window(self) -> int | None:
        """Maximum input tokens from litellm's model map, or None if unknown."""
        if self.direct:
            return modelmap.limit(self.name, "max_input_tokens")
        value = (routes.model_info(self.name) or {}).get("max_input_tokens")
        return value if isinstance(value, int) and value > 0 else None

    def count_tokens(self, messages: list[dict]) -> int:
        """Token count via litellm's tokenizer, falling back to JSON length / 4 (also on the
        direct path while litellm is still loading in the background: never wait for it)."""
        if self.direct and not loaded():
            preload_in_background()
            return len(json.dumps(messages, default=str)) // 4
        try:
            return int(load_litellm().token_counter(model=self.name, messages=messages))
        except Exception:  # tokenizer trouble must never break the loop
            return len(json.dumps(messages, default=str)) // 4


def _close(response: Any) -> None:
    """Release the HTTP connection behind a litellm stream (it has no sync close of its own)."""
    for target in (response, getattr(response, "completion_stream", None)):
        close = getattr(target, "close", None)
        if callable(close):
            with contextlib.suppress(Exception):
                close()
