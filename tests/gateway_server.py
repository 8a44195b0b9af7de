"""A real `jupyter kernelgateway` on 127.0.0.1 with a random token, for tests and benchmarks."""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

START_GUARD = 90.0  # seconds; only a guard against a gateway that never comes up


def free_port() -> int:
    """A port nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def gateway_command() -> list[str] | None:
    """`jupyter kernelgateway` from this interpreter's environment, or None when not installed."""
    try:
        import kernel_gateway  # noqa: F401
    except ImportError:
        return None
    return [sys.executable, "-m", "kernel_gateway"]


class KernelGateway:
    """Starts Jupyter Kernel Gateway; `url` and `token` once started; stop() ends it."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.token = secrets.token_hex(16)
        self.port = 0
        self.process: subprocess.Popen | None = None
        self.log = workdir / "gateway.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> KernelGateway:
        command = gateway_command()
        if command is None:
            raise RuntimeError("jupyter-kernel-gateway is not installed (pip install -e '.[test]')")
        for _ in range(3):  # a port taken between free_port() and the bind: try another
            self.port = free_port()
            env = {k: v for k, v in os.environ.items() if not k.startswith("INTERP_")}
            with open(self.log, "ab") as log:
                self.process = subprocess.Popen(
                    [*command, "--KernelGatewayApp.ip=127.0.0.1",
                     f"--KernelGatewayApp.port={self.port}", "--KernelGatewayApp.port_retries=0",
                     f"--KernelGatewayApp.auth_token={self.token}",
                     "--JupyterWebsocketPersonality.list_kernels=True"],
                    cwd=self.workdir, env=env, stdout=log, stderr=subprocess.STDOUT,
                    start_new_session=True)
            if self._wait_ready():
                return self
            self.stop()
        raise RuntimeError(f"the kernel gateway did not start; see {self.log}")

    def _wait_ready(self) -> bool:
        deadline = time.monotonic() + START_GUARD
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                self.get("/api/kernelspecs")
                return True
            except (urllib.error.URLError, OSError):
                time.sleep(0.1)
        return False

    def get(self, path: str):
        """A GET on the gateway's REST API with the token; the decoded JSON."""
        request = urllib.request.Request(self.url + path,
                                         headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.loads(answer.read())

    def kernel_ids(self) -> list[str]:
        """The kernels the gateway runs now."""
        return [kernel["id"] for kernel in self.get("/api/kernels")]

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, 9)
                self.process.wait()
        self.process = None

    def __enter__(self) -> KernelGateway:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
