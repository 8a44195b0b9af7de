"""The Python driver's package (`driver/`) as the user's Python or a kernel gets it: copied
into interp's cache folder as `_interp_driver` (imported from there, so Python keeps it
compiled), or, where no folder can be written and in a kernel, as one program that makes its
modules from their sources."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from functools import cache
from importlib.resources import files
from pathlib import Path

from ..cache import cache_folder

PACKAGE = "_interp_driver"  # the driver's name in the user's Python
# Each module after those it imports: the order the fallback program makes them in.
DRIVER = ("tables", "plots", "display", "state", "paths", "rewrite", "habits", "hints",
          "calls", "values", "main")
KERNEL_SETUP = ("tables", "plots", "display", "ipython_tables")


def source(name: str) -> str:
    """The text of one driver module, `driver/NAME.py`."""
    return files(__package__).joinpath("driver", f"{name}.py").read_text(encoding="utf-8")


@cache
def _version() -> str:
    digest = hashlib.sha256()
    for name in ("__init__", *DRIVER):
        digest.update(source(name).encode("utf-8"))
    return digest.hexdigest()[:16]


def cached_package() -> str | None:
    """The folder holding `_interp_driver/` in interp's cache folder (written once per version
    of the driver), or None where that folder cannot be written."""
    top = cache_folder() / "python-driver" / _version()
    if (top / PACKAGE / "main.py").is_file():
        return os.fspath(top)
    try:
        top.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=top.parent, prefix=".tmp-"))
    except OSError:
        return None
    try:
        (staging / PACKAGE).mkdir()
        for name in ("__init__", *DRIVER):
            (staging / PACKAGE / f"{name}.py").write_text(source(name), encoding="utf-8")
        os.replace(staging, top)
    except OSError:  # another interp wrote it first, or the folder is read-only
        shutil.rmtree(staging, ignore_errors=True)
        return os.fspath(top) if (top / PACKAGE / "main.py").is_file() else None
    return os.fspath(top)


@cache
def bundled(names: tuple[str, ...]) -> str:
    """A program that makes the package `_interp_driver` with the modules `names` (in that
    order) from their sources, in sys.modules, so their relative imports resolve."""
    sources = [(name, source(name)) for name in names]
    return ("def __interp_load(sources):\n"
            "    import sys, types\n"
            f"    package = types.ModuleType({PACKAGE!r})\n"
            "    package.__path__ = []\n"
            f"    sys.modules[{PACKAGE!r}] = package\n"
            "    for name, text in sources:\n"
            f"        module = types.ModuleType({PACKAGE!r} + '.' + name)\n"
            f"        module.__package__ = {PACKAGE!r}\n"
            "        sys.modules[module.__name__] = module\n"
            "        exec(compile(text, '<interp python driver: %s.py>' % name, 'exec'),\n"
            "             module.__dict__)\n"
            "        setattr(package, name, module)\n"
            f"__interp_load({sources!r})\n"
            "del __interp_load\n")


def console_paste(code: str) -> str | None:
    """The code lines of a pasted Python console session (others blanked), or None if it is
    not one (the driver's own test, `driver/rewrite.py`)."""
    from .driver.rewrite import console_paste as paste

    return paste(code)

