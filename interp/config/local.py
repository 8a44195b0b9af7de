"""Preparing `--local`: finding (or downloading) the model file, the local server's settings,
and what is shown while it loads."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from interp.config.settings import Settings
from interp.errors import UsageError
from interp.models.base import LOCAL
from interp.secrets import KEY_SUFFIXES, PROVIDER_VARIABLES

if TYPE_CHECKING:
    from interp.models.local.files import ModelSpec

    # Offers the default model in a terminal and downloads it (interp.ui.local_setup's
    # fetch_model): its path, or None when the person declines.
    Fetch = Callable[[ModelSpec, Path, str], Path | None]

MAX_REPLY_TOKENS = 4096  # a reply's limit: a small model that repeats itself stops here


def no_key_found(settings: Settings, environ: Mapping[str, str] | None = None) -> bool:
    """True when neither --api-key nor any provider's key variable is set."""
    env = os.environ if environ is None else environ
    known = {name for names in PROVIDER_VARIABLES.values() for name in names}
    return not settings.api_key and not any(
        value.strip() for name, value in env.items()
        if name in known or (name.endswith(KEY_SUFFIXES) and name != "INTERP_API_KEY"))


def prepare_local(settings: Settings, *, fetch: Fetch | None = None,
                  environ: Mapping[str, str] | None = None) -> Settings:
    """The settings with `local_model` set to a GGUF file that exists, the default one got by
    `fetch` (asking in a terminal; None where no one can be asked). Every problem is a
    UsageError saying what to do."""
    from interp.models.local.server import INSTALL_HINT, xllamacpp_installed
    from interp.models.local.files import (DEFAULT_MODEL, ModelFileError, default_model_path,
                                           resolve_model)

    if not xllamacpp_installed():
        raise UsageError(f"interp: {INSTALL_HINT}")
    try:
        path = resolve_model(settings.local_model, environ)
    except ModelFileError as exc:
        raise UsageError(f"interp: --local {exc}") from None
    if path is None:
        path = _download(fetch, DEFAULT_MODEL, default_model_path(environ), environ)
    return replace(settings, model=LOCAL, local_model=str(path))


def _download(fetch: Fetch | None, spec: ModelSpec, dest: Path, environ) -> Path:
    from interp.models.local.download import DownloadError

    try:
        path = fetch(spec, dest, spec.url(environ)) if fetch is not None else None
    except DownloadError as exc:
        raise UsageError(f"interp: downloading the local model failed: {exc}") from None
    if path is None:
        raise UsageError(no_local_model(dest))
    return path


def no_local_model(dest: Path) -> str:
    """What to do when there is no local model (and no download)."""
    from interp.models.local.files import DEFAULT_MODEL, size_text

    return (f"interp: no local model yet. Give one with --local PATH.gguf (or "
            f"INTERP_LOCAL_MODEL), or run interp --local in a terminal to download "
            f"{DEFAULT_MODEL.title} ({size_text(DEFAULT_MODEL.size)}) to {dest.parent}.")


def local_config(settings: Settings):
    """The server settings: threads and context from settings or measured defaults."""
    from interp.models.local.server import LocalConfig, default_threads
    from interp.models.local.files import ModelFileError, read_gguf

    path = Path(settings.local_model or "")
    try:
        trained = read_gguf(path).context_length
    except ModelFileError as exc:
        raise UsageError(f"interp: --local {exc}") from None
    context = settings.local_context or 0
    window = context or trained or 4096
    predict = min(MAX_REPLY_TOKENS, max(256, window // 4))
    return LocalConfig(path, threads=settings.local_threads or default_threads(),
                       context=context, temperature=settings.local_temperature,
                       predict=min(predict, settings.max_tokens or predict))


def startup_notice(settings: Settings) -> str:
    """Which local model runs, and how."""
    from interp.models.local.server import default_threads

    threads = settings.local_threads or default_threads()
    return (f"Local model {settings.local_model} (llama.cpp, {threads} "
            f"thread{'s' * (threads != 1)}); loading it now.")

