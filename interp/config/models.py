"""The one model factory: the models a run makes from its settings, for the CLI and `interp eval`
(litellm models by name, and at most one local model, whose server `close()` stops)."""

from __future__ import annotations

import sys
from typing import Any

from interp.config.settings import Settings
from interp.models.base import LOCAL
from interp.models.base import Model


def make_model(settings: Settings, name: str | None = None, *, endpoint: bool = True,
               params: dict[str, Any] | None = None) -> Model:
    """A litellm model for the settings (litellm itself loads on first use); without
    `endpoint`, the configured API base and key are left out; `params` are extra request
    parameters (temperature, max_tokens)."""
    from interp.models.reach import model_for
    from interp.models.window import with_window

    return with_window(model_for(name or settings.model,
                                 api_base=settings.api_base if endpoint else None,
                                 api_key=settings.api_key if endpoint else None,
                                 request_timeout=settings.request_timeout,
                                 idle_timeout=settings.idle_timeout,
                                 max_tokens=settings.max_tokens, params=params),
                       settings.context_window)


def provider_of(model: str) -> str | None:
    """The provider of a model name (`openai` for `gpt-4o`), from the provider table."""
    from interp.models.providers import provider_name

    return provider_name(model)


def switch_model(settings: Settings, name: str) -> tuple[Model, str | None]:
    """The model `/model NAME` switches to, and a note on what was reset, if anything.

    The configured API base and key belong to the configured model's provider: they are
    kept for models of that provider and never sent to another one."""
    if not (settings.api_base or settings.api_key):
        return make_model(settings, name), None
    ours, theirs = provider_of(settings.model), provider_of(name)
    if ours is not None and ours == theirs:
        return make_model(settings, name), None
    what = " and ".join(part for part, value in (("API base", settings.api_base),
                                                  ("API key", settings.api_key)) if value)
    verb = "are" if " and " in what else "is"
    missing = _missing_keys(name)
    note = (f"The {what} given for {ours or settings.model} {verb} not sent to "
            f"{theirs or name}; it uses its own settings"
            + (f" (set {' or '.join(missing)})" if missing else "") + ".")
    return make_model(settings, name, endpoint=False), note


def _missing_keys(model: str) -> list[str]:
    """The environment variables litellm wants for the model and does not find."""
    from interp.models.litellm.loader import load_litellm

    try:
        missing = load_litellm().validate_environment(model=model).get("missing_keys")
    except Exception:  # advice only
        return []
    return [str(key) for key in missing or [] if isinstance(key, str)]


class ModelMaker:
    """Makes the models of one run (`/model NAME` too): litellm models, and at most one local
    model, whose server `close()` stops. `params` are extra request parameters for each;
    `on_status` shows the local model's load; `fetch` gets the default local model in a
    terminal (config/local.py's prepare_local)."""

    def __init__(self, settings: Settings, on_status=None,
                 params: dict[str, Any] | None = None, fetch=None) -> None:
        self.settings = settings
        self.on_status = on_status
        self.params = params
        self.fetch = fetch
        self._local = None

    def __call__(self, name: str | None = None):
        """The model called `name` (default: the configured one)."""
        name = name or self.settings.model
        if name != LOCAL:
            return make_model(self.settings, name, params=self.params)
        if self._local is None:
            from interp.config.local import local_config, prepare_local
            from interp.models.local.server import LocalServer
            from interp.models.local.model import LocalModel

            settings = self.settings
            if not settings.local_model:  # /model local in a run that did not start with it
                settings = prepare_local(settings,
                                         fetch=self.fetch if sys.stdin.isatty() else None)
            self._local = LocalModel(LocalServer(local_config(settings), self.on_status))
            if self.params is not None:
                self._local.params = self.params
        return self._local

    def preload(self) -> None:
        """Start loading the local model, if this run made one, without waiting for it."""
        if self._local is not None:
            self._local.preload()

    def loading(self) -> float | None:
        """Seconds the local model has been loading in the background, or None."""
        return self._local.loading() if self._local is not None else None

    def switch(self, name: str):
        """`/model NAME`: the model and a note on what was reset (see switch_model)."""
        if name == LOCAL:
            return self(name), None
        return switch_model(self.settings, name)

    def close(self) -> None:
        """Stop the local server, if one was made."""
        if self._local is not None:
            self._local.close()
