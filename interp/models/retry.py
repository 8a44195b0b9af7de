"""When to retry a failed model call, and how long to wait first."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

RETRYABLE = frozenset({"rate_limit", "server", "timeout", "connection"})
_BACKOFF_BASE, _BACKOFF_CAP, _FIRST_CONNECTION_DELAY = 0.5, 8.0, 0.25
_GOOGLE_RETRY_DELAY = re.compile(r'"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"')
_WORDS = {"rate_limit": "rate limited", "server": "server error", "timeout": "timed out",
          "connection": "connection failed"}


@dataclass(frozen=True)
class RetryPolicy:
    """At most `max_retries` retries, and at most `budget` seconds of waiting between them in
    all (a wait the server asks for counts; one longer than the budget is not made)."""

    max_retries: int = 5
    budget: float = 30.0

    def limit(self, kind: str, midstream: bool = False) -> int:
        """How many retries a failure of this kind gets: a connection that cannot be made is
        tried once more only (the server is not running); the others `max_retries`."""
        return min(1, self.max_retries) if kind == "connection" and not midstream else \
            self.max_retries

    def delay(self, kind: str, exc: BaseException, retries: int, waited: float,
              midstream: bool = False) -> float | None:
        """Seconds to wait before retry number `retries + 1`, or None to give up.

        A connection that cannot be made is tried once more only (the server is not running);
        one lost in the middle of a reply is retried like a server error."""
        if kind not in RETRYABLE or retries >= self.limit(kind, midstream):
            return None
        if kind == "connection" and retries == 0:
            delay = _FIRST_CONNECTION_DELAY
        else:
            delay = min(_BACKOFF_CAP, _BACKOFF_BASE * 2 ** retries) * random.uniform(0.5, 1.0)
        delay = max(delay, server_delay(exc) or 0.0)
        return delay if waited + delay <= self.budget else None


def describe(kind: str, retry: int, max_retries: int, delay: float, midstream: bool) -> str:
    """One line for the status line, e.g. "rate limited, retry 1 of 5 in 4 s"."""
    what = _WORDS.get(kind, "failed")
    if midstream:
        what = {"connection": "connection lost", "server": "server error"}.get(kind, what)
        what += " mid-reply"
    return f"{what}, retry {retry} of {max_retries} in {delay:.0f} s" if delay >= 1 else \
        f"{what}, retry {retry} of {max_retries}"


def server_delay(exc: BaseException) -> float | None:
    """The wait the server asked for: Retry-After / retry-after-ms headers, or Google's
    RetryInfo.retryDelay in the error body."""
    response = getattr(exc, "response", None)
    headers = getattr(exc, "litellm_response_headers", None) or getattr(response, "headers", None) or {}
    try:
        if "retry-after-ms" in headers:
            return float(headers["retry-after-ms"]) / 1000
        if "retry-after" in headers:
            return float(headers["retry-after"])
    except (TypeError, ValueError):  # an HTTP-date: our own backoff instead
        pass
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:  # litellm wraps: look through the chain
        seen.add(id(exc))
        match = _GOOGLE_RETRY_DELAY.search(str(exc))
        if match:
            return float(match.group(1))
        exc = getattr(exc, "original_exception", None) or exc.__cause__ or exc.__context__
    return None
