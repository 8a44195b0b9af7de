"""The Node runner: one node process kept alive between blocks, evaluating in V8's REPL mode."""

from __future__ import annotations

import os
import shutil
from contextlib import ExitStack
from importlib.resources import as_file, files

from ..process.runner import ProcessRunner
from ..process.spawn import RunnerStartError
from ..protocol import RunnerConfig

_DRIVER = "node_driver.js"


class NodeRunner(ProcessRunner):
    """Runs JavaScript blocks in a persistent node; a trailing expression's value is shown."""

    name = "javascript"
    aliases = ("js", "node", "nodejs")
    suffix = ".js"

    def __init__(self, config: RunnerConfig | None = None) -> None:
        super().__init__(config)
        self._resources = ExitStack()
        self._driver: str | None = None

    def executable(self) -> str:
        """node on the runner's PATH."""
        node = shutil.which("node", path=self._environment().get("PATH"))
        if node is None:
            raise RunnerStartError("node is not installed or not on PATH; install Node.js to run JavaScript")
        return node

    def driver_path(self) -> str:
        """A filesystem path to the driver script shipped as package data."""
        if self._driver is None:
            self._driver = os.fspath(self._resources.enter_context(
                as_file(files(__package__).joinpath(_DRIVER))))
        return self._driver

    def argv(self) -> list[str]:
        """node running the driver, which reads commands on fd 3."""
        return [self.executable(), self.driver_path()]

    def sync_command(self, token: str) -> bytes:
        """`C`: print the marker, unlike `P`, without first waiting for a Ctrl-C to land."""
        return f"C {token}\n".encode()

    def stop(self) -> None:
        """Kill node and everything it started, and release the driver file."""
        super().stop()
        self._resources.close()
        self._driver = None
