"""interp's cache folder, where runners keep the files they write once (drivers, shims)."""

from __future__ import annotations

from pathlib import Path

import platformdirs


def cache_folder() -> Path:
    """interp's cache folder (the platform's user cache, `$XDG_CACHE_HOME/interp` on Linux)."""
    return platformdirs.user_cache_path("interp")
