"""Sorting litellm's exceptions into kinds and explaining them in one line."""

from __future__ import annotations

import re

from interp.models.loader import load_litellm

NO_PROVIDER = "llm provider not provided"
_KEY_MISSING = ("missing credentials", "api_key client option must be set", "missing api key")
_MODEL_MISSING = ("model_not_found", "model not found", "does not exist", "unknown model", "no such model")


def classify(exc: BaseException) -> str:
    """Classify an exception raised while calling the model."""
    text = str(exc).lower()
    if NO_PROVIDER in text:
        return "not_found"
    if isinstance(exc, ImportError):  # litellm itself is missing or broken
        return "other"
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
    import httpx, openai  # litellm dependencies, so already imported by now

    if in_chain(exc, (litellm.Timeout, TimeoutError, httpx.TimeoutException)):
        return "timeout"
    if isinstance(exc, litellm.RateLimitError) or status_of(exc) == 429:
        return "rate_limit"
    # litellm reports a refused connection as InternalServerError("Connection error."): look at the cause
    if in_chain(exc, (openai.APIConnectionError, ConnectionError, httpx.NetworkError)):
        return "connection"
    server_errors = (litellm.InternalServerError, litellm.ServiceUnavailableError, litellm.BadGatewayError)
    if isinstance(exc, server_errors) or (status_of(exc) or 0) >= 500:
        return "server"
    return "connection" if isinstance(exc, (OSError, httpx.HTTPError)) else "other"



def explain(model, kind: str, exc: BaseException, attempts: int) -> str:
    """A one-line, key-free explanation naming the model / api_base and what to do."""
    provider = getattr(exc, "llm_provider", None) or (model.name.split("/")[0] if "/" in model.name else "")
    where = model.api_base or (f"the {provider} API" if provider else "the provider")
    tries = f"{attempts} attempt{'s' * (attempts != 1)}"
    status = f"HTTP {status_of(exc)}, " if status_of(exc) else ""
    if kind == "not_found" and NO_PROVIDER in str(exc).lower():
        return (f"Unknown provider for model '{model.name}': use provider/model, e.g. openai/gpt-4o, "
                "anthropic/claude-sonnet-4-5 or ollama/llama3.1 (--model)")
    if kind == "bad_request" and isinstance(exc, load_litellm().ContextWindowExceededError):
        return f"The conversation is too long for {model.name}'s context window: start a new conversation"
    key_var = re.sub(r"\W", "_", provider or "openai").upper() + "_API_KEY"
    at = f" at {model.api_base}" if model.api_base else ""
    messages = {
        "auth": f"Authentication failed for {model.name}{at}: check {key_var} or --api-key",
        "not_found": f"Model '{model.name}' was not found at {where}: check --model",
        "connection": f"Could not reach {model.api_base}: is the server running? (--api-base)" if model.api_base
        else f"Could not reach {where} for {model.name}: check your network connection",
        "rate_limit": f"Rate limited by {where} for {model.name} ({tries}): wait a little and try again",
        "server": f"Server error from {where} for {model.name} ({status}{tries}): try again later",
        "timeout": f"Request to {where} for {model.name} timed out ({tries}, "
        f"{model.request_timeout:g}s limit): try again later",
        "bad_request": f"{where} rejected the request for {model.name}: {model._detail(exc)}",
    }
    return model._scrub(messages.get(kind, f"Calling {model.name} failed: {model._detail(exc)}"))



def in_chain(exc: BaseException | None, types: tuple[type, ...]) -> bool:
    """Whether exc or any exception it was raised from / during is one of types."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, types):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def status_of(exc: BaseException) -> int | None:
    try:
        return int(getattr(exc, "status_code", None) or 0) or None
    except (TypeError, ValueError):
        return None


def retry_after(exc: BaseException) -> float | None:
    """Seconds from Retry-After / retry-after-ms response headers, if present and numeric."""
    response = getattr(exc, "response", None)
    headers = getattr(exc, "litellm_response_headers", None) or getattr(response, "headers", None) or {}
    try:
        if "retry-after-ms" in headers:
            return float(headers["retry-after-ms"]) / 1000
        if "retry-after" in headers:
            return float(headers["retry-after"])
    except (TypeError, ValueError):  # an HTTP-date: fall back to our own backoff
        return None
    return None
