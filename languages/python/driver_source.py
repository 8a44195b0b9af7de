"""The Python driver's sources (`driver/*.py`, package data, never imported as modules): joined
into the program the Python runner starts or the setup a Python kernel runs, or run in a
private module where interp itself needs one of their functions."""

from __future__ import annotations

import types
from functools import cache
from importlib.resources import files

# In this order: each source uses names that those before it define.
DRIVER = ("tables", "plots", "display", "rewrite", "habits", "state", "hints", "paths", "main")
KERNEL_SETUP = ("tables", "display", "ipython_tables")


def source(name: str) -> str:
    """The text of one driver source, `driver/NAME.py`."""
    return files(__package__).joinpath("driver", f"{name}.py").read_text(encoding="utf-8")


@cache
def joined(names: tuple[str, ...]) -> str:
    """Several driver sources, one after another, as one program."""
    return "\n".join(source(name) for name in names)


@cache
def driver_module(name: str) -> types.ModuleType:
    """One driver source run in a module of its own (kept out of sys.modules), for interp's use."""
    module = types.ModuleType(f"interp_driver_{name}")
    exec(compile(source(name), f"<interp python driver: {name}.py>", "exec"), module.__dict__)
    return module


def console_paste(code: str) -> str | None:
    """The code lines of a pasted Python console session (others blanked), or None if it is
    not one (the driver's own test, `driver/rewrite.py`)."""
    return driver_module("rewrite").console_paste(code)
