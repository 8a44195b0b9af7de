"""Model adapter: streams chat completions through litellm with bounded retries and one-line errors."""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

from interp.models.base import ModelError, Reply, ToolCall, Usage
from interp.models.errors import classify, explain, retry_after
from interp.models.loader import load_litellm

_RETRYABLE = frozenset({"rate_limit", "server", "timeout"})
_BACKOFF_BASE, _BACKOFF_CAP, _CONNECTION_RETRY_DELAY = 0.5, 8.0, 0.25


class _Accumulator:
    """Collects streamed chunks into text, tool calls, usage and finish reason."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.calls: dict[int, dict] = {}
        self.usage: Any = None
        self.finish_reason: str | None = None

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def add(self, chunk: Any) -> str:
        """Absorb one chunk; return its text delta ('' if none)."""
        self.usage = getattr(chunk, "usage", None) or self.usage
        text = ""
        for choice in getattr(chunk, "choices", None) or ():
            self.finish_reason = getattr(choice, "finish_reason", None) or self.finish_reason
            delta = getattr(choice, "delta", None)
            text += getattr(delta, "content", None) or ""
            for call in getattr(delta, "tool_calls", None) or ():
                self._add_call(call)
        if text:
            self.parts.append(text)
        return text

    def _add_call(self, call: Any) -> None:
        index = call.index
        if index is None:  # some providers omit the index: a new id starts a new call
            index = len(self.calls) if call.id or not self.calls else max(self.calls)
        slot = self.calls.setdefault(index, {"id": "", "name": "", "args": []})
        slot["id"] = slot["id"] or call.id or ""
        function = getattr(call, "function", None)
        slot["name"] = slot["name"] or getattr(function, "name", None) or ""
        slot["args"].append(getattr(function, "arguments", None) or "")

    def reply(self, cost: float | None) -> Reply:
        """The final Reply."""
        calls = tuple(
            ToolCall(slot["id"] or f"call_{i}", slot["name"], "".join(slot["args"]))
            for i, slot in sorted(self.calls.items())
        )
        usage = None
        if self.usage is not None:
            usage = Usage(self.usage.prompt_tokens or 0, self.usage.completion_tokens or 0, cost)
        return Reply(self.text, calls, usage, self.finish_reason)


class LiteLLMModel:
    """Any litellm-supported model (``provider/model``), streamed, with bounded retries."""

    def __init__(self, name: str, api_base: str | None = None, api_key: str | None = None, *,
                 max_retry_seconds: float = 30.0, request_timeout: float = 120.0,
                 params: dict[str, Any] | None = None):
        self.name, self.api_base, self._api_key = name, api_base, api_key
        self.params = dict(params or {})  # extra request parameters, e.g. temperature
        self.max_retry_seconds, self.request_timeout = max_retry_seconds, request_timeout

    def __repr__(self) -> str:
        return f"LiteLLMModel({self.name!r}, api_base={self.api_base!r})"

    def stream(self, messages: list[dict], tools: list[dict] | None = None) -> Iterator[str | Reply]:
        """Yield text deltas as they arrive, then one Reply; raise ModelError on failure."""
        started, failures = time.monotonic(), Counter()
        while True:
            acc = _Accumulator()
            try:
                yield from self._attempt(messages, tools, acc)
            except Exception as exc:  # classified below; nothing but ModelError leaves this method
                kind = classify(exc)
                failures[kind] += 1
                attempts = failures.total()
                delay = None if acc.parts else self._retry_delay(kind, exc, failures, started)
                if delay is None:
                    message = explain(self, kind, exc, attempts) + (" (reply cut off)" if acc.parts else "")
                    raise ModelError(kind, message, detail=self._detail(exc), partial=acc.text,
                                     attempts=attempts) from exc
                time.sleep(delay)
                continue
            usage = acc.usage
            yield acc.reply(self._cost(usage.prompt_tokens or 0, usage.completion_tokens or 0) if usage else None)
            return

    def _attempt(self, messages: list[dict], tools: list[dict] | None, acc: _Accumulator) -> Iterator[str]:
        """One streamed request; yields text deltas into the consumer and fills ``acc``."""
        kwargs: dict[str, Any] = dict(
            model=self.name, messages=messages, stream=True, api_base=self.api_base, api_key=self._key(),
            stream_options={"include_usage": True}, timeout=self.request_timeout,
            num_retries=0, max_retries=0, drop_params=True,
        )
        kwargs.update(self.params)
        if tools:
            kwargs["tools"] = tools
        response = load_litellm().completion(**kwargs)
        try:
            for chunk in response:
                text = acc.add(chunk)
                if text:
                    yield text
        finally:
            _close(response)

    def _key(self) -> str | None:
        """The key to send: a placeholder for key-less OpenAI-compatible servers at --api-base."""
        if self._api_key or not self.api_base or not self.name.startswith("openai/"):
            return self._api_key
        return None if os.environ.get("OPENAI_API_KEY") else "sk-no-key-required"

    def _retry_delay(self, kind: str, exc: BaseException, failures: Counter, started: float) -> float | None:
        """Seconds to wait before retrying, or None to give up (not transient, or over budget)."""
        if kind == "connection" and failures[kind] == 1:
            delay = _CONNECTION_RETRY_DELAY
        elif kind in _RETRYABLE:
            backoff = min(_BACKOFF_CAP, _BACKOFF_BASE * 2 ** (failures.total() - 1))
            delay = max(backoff * random.uniform(0.5, 1.0), retry_after(exc) or 0.0)
        else:
            return None
        remaining = self.max_retry_seconds - (time.monotonic() - started)
        return delay if delay < remaining else None

    def _detail(self, exc: BaseException) -> str:
        """The first line of the provider's error text, without litellm's prefixes or the API key."""
        line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        line = re.sub(r"^(?:litellm\.\w+: )?(?:\w+Error: )?(?:\w+Exception - )?", "", line)
        return self._scrub(line[:200] or type(exc).__name__)

    def _scrub(self, text: str) -> str:
        return text.replace(self._api_key, "***") if self._api_key and len(self._api_key) >= 4 else text

    def _cost(self, prompt: int, completion: int) -> float | None:
        """USD cost from litellm's price list, or None for unknown models."""
        try:
            costs = load_litellm().cost_per_token(model=self.name, prompt_tokens=prompt, completion_tokens=completion)
            return float(sum(costs))
        except Exception:  # unknown model / provider: litellm raises assorted types
            return None

    def supports_tools(self) -> bool:
        """Whether litellm says the model supports function calling (False if unknown)."""
        return self._ask("supports_function_calling")

    def supports_vision(self) -> bool:
        """Whether litellm says the model accepts images (False if unknown)."""
        return self._ask("supports_vision")

    def _ask(self, function: str) -> bool:
        try:
            return bool(getattr(load_litellm(), function)(model=self.name))
        except Exception:  # unknown model: litellm raises assorted types
            return False

    def context_window(self) -> int | None:
        """Maximum input tokens from litellm's model map, or None if unknown."""
        try:
            value = load_litellm().get_model_info(self.name).get("max_input_tokens")
        except Exception:  # "This model isn't mapped yet" is a bare Exception
            return None
        return value if isinstance(value, int) and value > 0 else None

    def count_tokens(self, messages: list[dict]) -> int:
        """Token count via litellm's tokenizer, falling back to JSON length / 4."""
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
