"""The failures of a model call (litellm's exceptions and WireError, those of interp's own
clients) sorted into kinds and explained in one line."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from interp.models.litellm.loader import load_litellm
from interp.models.providers import key_variable
from interp.models.retry import server_delay

if TYPE_CHECKING:
    import httpx

NO_PROVIDER = "llm provider not provided"
_KEY_MISSING = ("missing credentials", "api_key client option must be set", "missing api key")
_MODEL_MISSING = ("model_not_found", "model not found", "does not exist", "unknown model", "no such model")
_TOO_LONG = ("context_length_exceeded", "maximum context length", "context length",
             "exceed_context_size", "context window", "too many tokens")


class WireError(Exception):
    """A failed call of interp's own clients (wire/): an error status, an error event in the stream, or a
    request that could not be made (no key). `str()` holds the server's own text."""

    def __init__(self, message: str, status: int | None = None,
                 response: httpx.Response | None = None, kind: str | None = None):
        super().__init__(message)
        self.status_code, self.response, self.kind = status, response, kind


def classify(exc: BaseException) -> str:
    """Classify an exception raised while calling the model."""
    text = str(exc).lower()
    if NO_PROVIDER in text:
        return "not_found"
    if isinstance(exc, ImportError):  # litellm itself is missing or broken
        return "other"
    if isinstance(exc, WireError):
        return exc.kind or _status_kind(exc.status_code or 0, text)
    if not from_litellm(exc):  # interp's own OpenAI client: httpx and socket errors
        return _plain_kind(exc, text)
    litellm = load_litellm()
    if isinstance(exc, (litellm.AuthenticationError, litellm.PermissionDeniedError)) or any(
        s in text for s in _KEY_MISSING  # the openai client refuses to send without a key: litellm says "500"
    ):
        return "auth"
    if isinstance(exc, litellm.NotFoundError) or (
        isinstance(exc, litellm.BadRequestError) and "model" in text and any(s in text for s in _MODEL_MISSING)
    ):
        return "not_found"
    if isinstance(exc, (litellm.BadRequestError, litellm.UnprocessableEntityError)):
        return "bad_request"
    import httpx  # litellm dependencies, so already imported by now
    import openai

    if in_chain(exc, (litellm.Timeout, TimeoutError, httpx.TimeoutException)):
        return "timeout"
    if isinstance(exc, litellm.RateLimitError) or status_of(exc) == 429:
        return "rate_limit"
    # litellm reports a refused connection as InternalServerError("Connection error."): look at the cause
    if in_chain(exc, (openai.APIConnectionError, ConnectionError, httpx.NetworkError,
                     httpx.RemoteProtocolError)):
        return "connection"
    server_errors = (litellm.InternalServerError, litellm.ServiceUnavailableError, litellm.BadGatewayError)
    if isinstance(exc, server_errors) or (status_of(exc) or 0) >= 500:
        return "server"
    return "connection" if isinstance(exc, (OSError, httpx.HTTPError)) else "other"



def _status_kind(status: int, text: str) -> str:
    """The kind of an error status from an OpenAI-compatible server, sorted as litellm does."""
    if status in (401, 403):
        return "auth"
    if status == 404 or (status == 400 and "model" in text and any(s in text for s in _MODEL_MISSING)):
        return "not_found"
    if status in (400, 413, 422):
        return "bad_request"
    if status == 408:
        return "timeout"
    if status == 429:
        return "rate_limit"
    return "server" if status >= 500 else "other"


def _plain_kind(exc: BaseException, text: str) -> str:
    """The kind of an error that did not come through litellm (httpx, sockets, deadlines)."""
    import httpx

    if any(s in text for s in _KEY_MISSING):
        return "auth"
    if in_chain(exc, (TimeoutError, httpx.TimeoutException)):
        return "timeout"
    if status_of(exc) == 429:
        return "rate_limit"
    if in_chain(exc, (ConnectionError, httpx.NetworkError, httpx.RemoteProtocolError)):
        return "connection"
    if (status_of(exc) or 0) >= 500:
        return "server"
    return "connection" if isinstance(exc, (OSError, httpx.HTTPError)) else "other"


def from_litellm(exc: BaseException) -> bool:
    """Whether litellm (or the OpenAI SDK under it) raised or wrapped this error."""
    return any(type(c).__module__.split(".")[0] in ("litellm", "openai") for c in _chain(exc))


def too_long(exc: BaseException) -> bool:
    """Whether the server said the conversation does not fit the model's context window."""
    if isinstance(exc, WireError):
        return exc.status_code in (400, 413) and any(s in str(exc).lower() for s in _TOO_LONG)
    return from_litellm(exc) and isinstance(exc, load_litellm().ContextWindowExceededError)


def explain(model, kind: str, exc: BaseException, attempts: int) -> str:
    """A one-line, key-free explanation naming the model / api_base and what to do."""
    provider = getattr(model, "provider", "") or (model.name.split("/")[0] if "/" in model.name else "")
    where = model.api_base or (f"the {provider} API" if provider else "the provider")
    tries = f"{attempts} attempt{'s' * (attempts != 1)}"
    status = true_status(exc)
    said = _said(exc, model)
    if kind == "not_found" and NO_PROVIDER in str(exc).lower():
        return (f"Unknown provider for model '{model.name}': use provider/model, e.g. openai/gpt-4o, "
                "anthropic/claude-sonnet-4-5 or ollama/llama3.1 (--model)")
    if kind == "bad_request" and too_long(exc):
        return f"The conversation is too long for {model.name}'s context window: start a new conversation"
    key_var = key_variable(model.name, provider)
    at = f" at {model.api_base}" if model.api_base else ""
    wait = server_delay(exc)
    messages = {
        "auth": f"Authentication failed for {model.name}{at}: check {key_var} or --api-key",
        "not_found": f"Model '{model.name}' was not found at {where}: check --model",
        "connection": f"Could not reach {model.api_base}: is the server running? (--api-base)" if model.api_base
        else f"Could not reach {where} for {model.name}: check your network connection",
        "rate_limit": f"Rate limited by {where} for {model.name} ({tries}"
        + (f"; it asks to wait {wait:g} s" if wait else "") + "): wait a little and try again",
        "server": f"Server error from {where} for {model.name} ("
        + (f"HTTP {status}: " if status else "") + f"{said}; {tries}): try again later",
        "timeout": f"Request to {where} for {model.name} timed out ({tries}, "
        f"{model.request_timeout:g}s limit): try again later",
        "bad_request": f"{where} rejected the request for {model.name}: {said}"
        + (" (--max-tokens sets the output cap)" if "max_tokens" in said else ""),
    }
    return model._scrub(messages.get(kind, f"Calling {model.name} failed: {said}"))


def _said(exc: BaseException, model) -> str:
    """What the provider said: the message of a JSON error body, else the first line."""
    for candidate in _chain(exc):
        text = str(candidate)
        start = text.find("{")
        if start < 0:
            continue
        body = text[start:].rstrip("'\"")
        try:
            data = json.loads(body)
        except ValueError:
            continue
        error = data.get("error") if isinstance(data, dict) else None
        message = error.get("message") if isinstance(error, dict) else error
        if isinstance(message, str) and message.strip():
            return model._scrub(message.strip().splitlines()[0][:200])
    return model._detail(exc)


def _chain(exc: BaseException | None):
    """exc, then what it wraps (litellm's original_exception, causes and contexts)."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = getattr(exc, "original_exception", None) or exc.__cause__ or exc.__context__


def true_status(exc: BaseException) -> int | None:
    """The HTTP status the server sent: the innermost one litellm's wrappers carry (litellm
    reports an overloaded 529 or a 503 mid-stream as a 500 of its own)."""
    found = None
    for candidate in _chain(exc):
        response = getattr(candidate, "response", None)
        code = getattr(candidate, "status_code", None) or getattr(response, "status_code", None)
        if isinstance(code, int) and code >= 400:
            found = code
    return found


def in_chain(exc: BaseException | None, types: tuple[type, ...]) -> bool:
    """Whether exc or any exception it wraps (was raised from / during) is one of types."""
    return any(isinstance(candidate, types) for candidate in _chain(exc))


def status_of(exc: BaseException) -> int | None:
    try:
        return int(getattr(exc, "status_code", None) or 0) or None
    except (TypeError, ValueError):
        return None


def retry_after(exc: BaseException) -> float | None:
    """Seconds the server asked to wait (Retry-After headers or Google's RetryInfo)."""
    return server_delay(exc)
