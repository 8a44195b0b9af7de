"""The Python runner: a persistent interpreter (the user's choice, the active virtualenv's,
else interp's own), kept alive between blocks."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping

from ..process.runner import ProcessRunner
from ..protocol import RunnerConfig
from ..process.python_shims import path_with, shim_folder
from .driver_source import DRIVER, PACKAGE, bundled, cached_package


def choose_python(config: RunnerConfig, environ: Mapping[str, str]) -> tuple[str, str]:
    """(interpreter, why it was chosen): the configured one (--python, INTERP_PYTHON, config),
    else the active virtualenv's (VIRTUAL_ENV), else the one interp runs in (the one that
    `interp[data]` equips), else python3 on PATH."""
    if config.python:
        return config.python, "chosen with --python, INTERP_PYTHON or config.toml"
    venv = environ.get("VIRTUAL_ENV")
    if venv:
        for name in ("python", "python3"):
            path = os.path.join(venv, "bin", name)
            if os.path.isfile(path) and os.access(path, os.X_OK):
                return path, f"the active virtualenv {venv}"
    if sys.executable:
        return sys.executable, "the Python interp runs in"
    return shutil.which("python3", path=environ.get("PATH")) or "python3", "python3 on PATH"


def python_first(config: RunnerConfig) -> dict[str, str]:
    """{"PATH": ...} with `python`, `python3`, `pip` and `pip3` running the interpreter that
    Python blocks use first (languages/process/python_shims.py), or {} when that folder cannot
    be made."""
    environ = {**os.environ, **config.env}
    python, _ = choose_python(config, environ)
    if not os.path.isabs(python):
        python = shutil.which(python, path=environ.get("PATH")) or python
    folder = shim_folder(os.path.abspath(python)) if os.path.isabs(python) else None
    return {"PATH": path_with(folder, environ.get("PATH"))} if folder else {}


# Imports the driver package from the folder named by the next argument and runs it; Python
# keeps it compiled there (compiling it costs about 15 ms a start), even under
# PYTHONDONTWRITEBYTECODE: it is interp's own cache folder. sys.path[0] stays the working
# directory; the driver's folder goes last, and holds nothing but `_interp_driver`.
_LOADER = ("import sys;d=sys.dont_write_bytecode;sys.dont_write_bytecode=False;"
           f"sys.path.append(sys.argv[1]);import {PACKAGE}.main as m;sys.dont_write_bytecode=d;"
           "m.main()")


def _framed(command: str) -> bytes:
    """A command as the driver reads it: its length in six digits, then the command, so the
    driver takes it in two reads and leaves what follows in the pipe."""
    data = command.encode("utf-8", "surrogateescape")
    return b"%06d" % len(data) + data


class PythonRunner(ProcessRunner):
    """Runs Python blocks in a persistent interpreter; a trailing expression's value is shown."""

    name = "python"
    aliases = ("py", "python3")
    suffix = ".py"

    def executable(self) -> str:
        """The interpreter that runs the blocks (see `choose_python`)."""
        return choose_python(self.config, self._environment())[0]

    def argv(self) -> list[str]:
        """python3 running the driver from -c, so sys.path[0] is the working directory: its
        package from the cache folder where it could be written there, else made from its
        sources."""
        folder = cached_package()
        if folder is None:
            return [self.executable(), "-q", "-c",
                    bundled(DRIVER) + f"import sys\nsys.modules['{PACKAGE}.main'].main()\n"]
        return [self.executable(), "-q", "-c", _LOADER, folder]

    def run_command(self, token: str, path: str) -> bytes:
        """Run the code file as block `self.block` (its traceback and figure names)."""
        return _framed(f"R {token} {self.block or 0} {path}\n")

    def ping_command(self, token: str) -> bytes:
        """Print the marker only."""
        return _framed(f"P {token}\n")

    def output_dir(self) -> str:
        """The absolute folder where figures are saved (created when the first one is)."""
        folder = os.path.expanduser(self.config.output_dir or "interp-output")
        return os.path.abspath(os.path.join(self.config.cwd or os.getcwd(), folder))

    def env_overrides(self) -> dict[str, str]:
        """Charts render to files in the output folder, never to a window; `python` and `pip`
        in the programs a block starts are this interpreter (python_first)."""
        return {"MPLBACKEND": "Agg", "INTERP_OUTPUT_DIR": self.output_dir(),
                **python_first(self.config)}
