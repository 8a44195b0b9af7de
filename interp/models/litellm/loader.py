"""Loading litellm lazily and quietly, in the background while the user types."""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import threading
import warnings
from typing import Any


@functools.cache
def load_litellm() -> Any:
    """Import litellm once, quietly: local price list, no banners, warnings and errors only."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_LOG", "ERROR")
    import litellm

    litellm.suppress_debug_info = True  # no "Give Feedback / Get Help" banners
    # Counting tokens for a Llama or Cohere name would fetch a tokenizer from the Hugging Face
    # hub (23 s of retries offline); tiktoken's count is close enough to trim a conversation.
    litellm.disable_hf_tokenizer_download = True
    warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"litellm\.")
    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy"):
        logging.getLogger(name).setLevel(logging.ERROR)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    return litellm


def loaded() -> bool:
    """Whether litellm has been imported (by load_litellm) already: using it will not wait."""
    return load_litellm.cache_info().currsize > 0


_PRELOAD = "interp-litellm-preload"


def preload_in_background(litellm: bool = True) -> threading.Thread:
    """Start importing litellm (or, with `litellm=False`, only the HTTP client of interp's own
    OpenAI-compatible path) in a daemon thread, e.g. while the user types; return the thread.
    One already importing is returned instead of starting another."""
    for thread in threading.enumerate():
        if thread.name == _PRELOAD:
            return thread
    thread = threading.Thread(target=_preload if litellm else _preload_http, name=_PRELOAD,
                              daemon=True)
    thread.start()
    return thread


def settle(timeout: float = 15.0) -> bool:
    """Wait (at most `timeout` s) for a background import of litellm to finish: a process that
    exits while a thread is still importing can crash at interpreter shutdown. True if none
    is left running."""
    for thread in threading.enumerate():
        if thread.name == _PRELOAD:
            thread.join(timeout)
            return not thread.is_alive()
    return True


def _preload_http() -> None:
    with contextlib.suppress(Exception):
        import interp.models.client  # noqa: F401  (httpx, httpcore)


def _preload() -> None:
    with contextlib.suppress(Exception):  # a broken install is reported on first real use
        load_litellm()
