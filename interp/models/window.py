"""A model whose context window the user gave (setting `context_window`): for servers interp
cannot ask, such as a llama.cpp or vLLM server behind an OpenAI-compatible URL."""

from __future__ import annotations


class KnownWindow:
    """`model` as it is, except that its context window is `window` tokens."""

    def __init__(self, model, window: int) -> None:
        self._model = model
        self._window = window

    def context_window(self) -> int | None:
        """The window given in the settings."""
        return self._window

    def __getattr__(self, name: str):
        return getattr(self._model, name)


def with_window(model, window: int | None):
    """`model`, with its context window replaced when `window` is set."""
    return KnownWindow(model, window) if window else model
