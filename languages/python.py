"""The Python runner: the user's python3, kept alive between blocks."""

from __future__ import annotations

import os
import shutil
import sys
from functools import cache
from importlib.resources import files

from .base import ProcessRunner


@cache
def _driver_source() -> str:
    """The display helpers followed by the driver, run as one -c program."""
    here = files(__package__)
    return "\n".join(here.joinpath(name).read_text(encoding="utf-8")
                     for name in ("_python_display.py", "_python_driver.py"))


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

    def run_command(self, token: str, path: str) -> bytes:
        """Run the code file as block `self.block` (its traceback and figure names)."""
        return f"R {token} {self.block or 0} {path}\n".encode()

    def output_dir(self) -> str:
        """The absolute folder where figures are saved (created when the first one is)."""
        folder = os.path.expanduser(self.config.output_dir or "interp-output")
        return os.path.abspath(os.path.join(self.config.cwd or os.getcwd(), folder))

    def env_overrides(self) -> dict[str, str]:
        """Charts render to files in the output folder, never to a window."""
        return {"MPLBACKEND": "Agg", "INTERP_OUTPUT_DIR": self.output_dir()}
