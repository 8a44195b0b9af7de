"""What both `interp eval` commands share: the settings, the model to score, one-line failures."""

from __future__ import annotations

import sys
import threading
from dataclasses import replace

from interp.config.settings import Settings, no_model_help
from interp.core import exits
from interp.models.base import LOCAL


def fail(message: str, code: int = exits.USAGE) -> int:
    """Print `interp eval: MESSAGE` on stderr; returns `code`."""
    sys.stderr.write(f"interp eval: {message}\n")
    return code


def with_model(settings: Settings) -> Settings | None:
    """The settings, or None after saying that no model is configured; INTERP_LOCAL_MODEL
    alone selects the local model."""
    if not settings.model and settings.local_model:
        settings = replace(settings, model=LOCAL)
    if not settings.model:
        sys.stderr.write(no_model_help())
        return None
    return settings


def eval_model(settings: Settings, temperature: float, max_tokens: int,
               lines: LoadLines | None = None):
    """The settings (a local model's file found) and the model to score, from the one model
    factory, its load said by `lines`; UsageError if the local model cannot be had."""
    from interp.config.models import ModelMaker

    params = {"temperature": temperature, "max_tokens": max_tokens}
    if settings.model == LOCAL:
        from interp.config.local import prepare_local

        settings = prepare_local(settings)  # no one to ask: no download
        if settings.local_temperature is None:
            settings = replace(settings, local_temperature=temperature)
    return settings, ModelMaker(settings, on_status=lines or LoadLines(), params=params)()


class LoadLines:
    """A local model's load, one line on stderr each (a progress bar may be drawing there),
    until `last` writes the command's last line: a worker thread still solving a problem
    can start the load again after the command gave up, and its line must not follow."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ended = False

    def __call__(self, status) -> None:
        if status.phase == "loading":
            self._write(f"interp eval: {status.text}...\n")
        elif status.phase == "ready":
            self._write(f"interp eval: {status.text} (loaded in {status.seconds:.1f} s)\n")

    def last(self, message: str) -> None:
        """Write `interp eval: MESSAGE` as the last line; later load lines are dropped."""
        self._write(f"interp eval: {message}\n", end=True)

    def _write(self, text: str, end: bool = False) -> None:
        with self._lock:
            if self._ended:
                return
            self._ended = end
            sys.stderr.write(text)
            sys.stderr.flush()


def close(model) -> None:
    """Close the model (a local model's server stops); others have nothing to close."""
    closer = getattr(model, "close", None)
    if closer is not None:
        closer()
