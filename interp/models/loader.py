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
    warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"litellm\.")
    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy"):
        logging.getLogger(name).setLevel(logging.ERROR)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    return litellm


def loaded() -> bool:
    """Whether litellm has been imported (by load_litellm) already: using it will not wait."""
    return load_litellm.cache_info().currsize > 0


_PRELOAD = "interp-litellm-preload"


def preload_in_background() -> threading.Thread:
    """Start importing litellm in a daemon thread (e.g. while the user types) and return the
    thread; one already importing is returned instead of starting another."""
    for thread in threading.enumerate():
        if thread.name == _PRELOAD:
            return thread
    thread = threading.Thread(target=_preload, name=_PRELOAD, daemon=True)
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


def _preload() -> None:
    with contextlib.suppress(Exception):  # a broken install is reported on first real use
        load_litellm()
