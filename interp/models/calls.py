"""What every remote model shares, whoever speaks its protocol: a streamed call within
interp's own deadlines, bounded retries (also after part of a reply has streamed) and
one-line errors. interp's own clients (wire/model.py) and the litellm adapter
(litellm/model.py) differ only in how one attempt is made and what is known of the model."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from typing import Any

from interp.models.base import ModelError, Reply, Retrying
from interp.models.errors import classify, explain
from interp.models.retry import RetryPolicy, describe
from interp.models.stream import Accumulator
from interp.models.watch import DeadlineExceeded

DEFAULT_MAX_TOKENS = 8192


class Refused(Exception):
    """interp's own first request was refused by a provider litellm knows more quirks of:
    the call is better made through litellm (handover.py)."""

    def __init__(self, error: Exception, detail: str) -> None:
        super().__init__(detail)
        self.error, self.detail = error, detail


class StreamedModel:
    """A remote model, streamed, with bounded retries. Subclasses make one attempt
    (`_attempt`) and say what is known of the model.

    `request_timeout` bounds the wait for the first token, `idle_timeout` the wait between
    two tokens; `max_tokens` caps a reply (0: send no cap; clipped to what is known of the
    model's output limit); `params` are extra request parameters, e.g. temperature."""

    direct = False  # whether interp's own client carries the calls (wire/)

    def __init__(self, name: str, api_base: str | None = None, api_key: str | None = None, *,
                 max_retry_seconds: float = 30.0, request_timeout: float = 600.0,
                 idle_timeout: float = 120.0, max_tokens: int | None = DEFAULT_MAX_TOKENS,
                 max_retries: int = 5, params: dict[str, Any] | None = None):
        self.name, self.api_base, self._api_key = name, api_base, api_key
        self.params = dict(params or {})  # extra request parameters, e.g. temperature
        self.max_retry_seconds, self.request_timeout = max_retry_seconds, request_timeout
        self.idle_timeout, self.max_tokens = idle_timeout, max_tokens
        self.max_retries = max_retries
        self.retry = RetryPolicy(max_retries=max_retries, budget=max_retry_seconds)
        self._http = None  # the tracked httpx client, made on first use
        self.tool_source = "litellm"  # who said whether the model supports function calling

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, api_base={self.api_base!r})"

    @property
    def provider(self) -> str:
        """litellm's name for the model's provider ('' if unknown)."""
        return ""

    def stream(self, messages: list[dict], tools: list[dict] | None = None) -> Iterator[str | Retrying | Reply]:
        """Yield text deltas as they arrive, a Retrying before each retry, then one Reply;
        raise ModelError on failure (Refused where a refusal is to be handed over)."""
        self._prepare()
        retries, waited, received = 0, 0.0, ""  # received: the longest text of any attempt
        while True:
            acc = Accumulator()
            try:
                yield from self._attempt(messages, tools, acc)
            except Exception as exc:  # classified below; nothing but ModelError leaves this method
                self._check_refusal(exc, acc)
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
                limit = self.retry.limit(kind, midstream)  # announced as it will be tried
                yield Retrying(retries, limit, round(delay, 2), kind,
                               describe(kind, retries, limit, delay, midstream),
                               restart=bool(acc.parts))
                time.sleep(delay)
                continue
            self._answered()
            usage = acc.usage
            yield acc.reply(self._cost(usage.prompt_tokens, usage.completion_tokens) if usage else None)
            return

    # -- what a subclass supplies ---------------------------------------------------------
    def _prepare(self) -> None:
        """Before the first attempt and its deadlines (litellm: its import)."""

    def _attempt(self, messages: list[dict], tools: list[dict] | None,
                 acc: Accumulator) -> Iterator[str]:
        """One streamed request, within the deadlines; yields text deltas and fills `acc`."""
        raise NotImplementedError

    def _check_refusal(self, exc: Exception, acc: Accumulator) -> None:
        """Raise Refused where this failure is to be handed over (wire/model.py)."""

    def _answered(self) -> None:
        """A call was answered in full."""

    def _cost(self, prompt: int, completion: int) -> float | None:
        return None

    # -- shared ---------------------------------------------------------------------------
    def _tracked(self) -> Any:
        """The tracked httpx client of this model, made on first use."""
        from interp.models import client

        if self._http is None:
            self._http = client.tracked_client(self.request_timeout)
        return self._http

    def _error(self, kind: str, exc: BaseException, attempts: int, acc: Accumulator,
               received: str) -> ModelError:
        if isinstance(exc, DeadlineExceeded):
            message = self._deadline_message(exc, acc)
        else:
            message = explain(self, kind, exc, attempts)
            if acc.parts:
                message += " (reply cut off)"
        return ModelError(kind, message, detail=self._detail(exc), partial=received,
                          attempts=attempts)

    def _deadline_message(self, exc: DeadlineExceeded, acc: Accumulator) -> str:
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

    def options(self) -> dict[str, Any]:
        """The keyword settings this model was made with (to make its like)."""
        return dict(max_retry_seconds=self.max_retry_seconds,
                    request_timeout=self.request_timeout, idle_timeout=self.idle_timeout,
                    max_tokens=self.max_tokens, max_retries=self.max_retries,
                    params=self.params)
