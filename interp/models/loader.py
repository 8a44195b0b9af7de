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


def preload_in_background() -> threading.Thread:
    """Start importing litellm in a daemon thread (e.g. while the user types) and return the thread."""
    thread = threading.Thread(target=_preload, name="interp-litellm-preload", daemon=True)
    thread.start()
    return thread


def _preload() -> None:
    with contextlib.suppress(Exception):  # a broken install is reported on first real use
        load_litellm()
