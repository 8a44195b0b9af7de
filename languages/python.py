"""The Python runner: the user's python3, kept alive between blocks."""

from __future__ import annotations

import shutil
import sys
from functools import cache
from importlib.resources import files

from .base import ProcessRunner


@cache
def _driver_source() -> str:
    return files(__package__).joinpath("_python_driver.py").read_text(encoding="utf-8")


class PythonRunner(ProcessRunner):
    """Runs Python blocks in a persistent interpreter; a trailing expression's value is shown."""

    name = "python"
    aliases = ("py", "python3")
    suffix = ".py"

    def executable(self) -> str:
        """The configured python, else python3 on the runner's PATH, else interp's own."""
        if self.config.python:
            return self.config.python
        path = self._environment().get("PATH")
        return shutil.which("python3", path=path) or sys.executable

    def argv(self) -> list[str]:
        """python3 running the driver from -c, so sys.path[0] is the working directory."""
        return [self.executable(), "-q", "-c", _driver_source()]

    def env_overrides(self) -> dict[str, str]:
        """Charts render to files, never to a window."""
        return {"MPLBACKEND": "Agg"}
