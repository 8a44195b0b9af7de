"""interp's cache folder, where runners keep the files they write once (drivers, shims) and
downloaded models are kept."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import platformdirs


def cache_folder(environ: Mapping[str, str] | None = None) -> Path:
    """interp's cache folder: `$XDG_CACHE_HOME/interp` when that is an absolute path (as the
    XDG spec says), else the platform's user cache; `environ`: os.environ by default."""
    xdg = (os.environ if environ is None else environ).get("XDG_CACHE_HOME", "")
    return Path(xdg) / "interp" if xdg and os.path.isabs(xdg) else \
        platformdirs.user_cache_path("interp")
