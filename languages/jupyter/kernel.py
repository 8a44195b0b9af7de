"""What the Jupyter runner needs from a kernel connection, local or through a gateway."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from ..process.spawn import RunnerStartError

INSTALL_HINT = "install it with: pip install 'interp[jupyter]'"
DEAD_STATES = frozenset({"restarting", "dead"})  # a kernel's status after it died
DEFAULT_TOKEN_ENV = "INTERP_GATEWAY_TOKEN"
DEFAULT_KERNELS = {"python": "python3", "shell": "bash", "javascript": "javascript", "r": "ir",
                   "julia": "julia"}


@dataclass(frozen=True)
class KernelChoice:
    """Where a language's blocks run: an installed kernelspec, or a kernel on a gateway."""

    kernel: str | None = None  # kernelspec name; None: the language's usual kernel
    gateway_url: str | None = None  # None: a local kernel
    token_env: str = DEFAULT_TOKEN_ENV  # the variable holding the gateway's token
    start_timeout: float = 60.0

    def describe(self) -> str:
        """E.g. 'the local kernel python3' or 'kernel python3 on the gateway at URL'."""
        name = self.kernel or "(default)"
        if self.gateway_url:
            return f"kernel {name} on the gateway at {self.gateway_url}"
        return f"the local kernel {name}"


class KernelError(RunnerStartError):
    """A kernel could not be started or reached; the message is one line."""


class Kernel(Protocol):
    """One running kernel: send code, read its IOPub messages, interrupt it, shut it down."""

    language: str  # the kernelspec's language, e.g. "python"
    where: str  # for messages, e.g. "kernel python3" or "kernel python3 on http://gpu:8888"

    def start(self, timeout: float) -> None: ...
    def execute(self, code: str, silent: bool = False) -> str: ...
    def next_message(self, timeout: float) -> dict[str, Any] | None: ...
    def interrupt(self) -> None: ...
    def alive(self) -> bool: ...
    def exit_status(self) -> tuple[int | None, int | None]: ...
    def pid(self) -> int | None: ...
    def shutdown(self) -> None: ...


def execute_content(code: str, silent: bool = False) -> dict[str, Any]:
    """The content of an execute_request: no stdin (input() fails at once instead of hanging)."""
    return {"code": code, "silent": silent, "store_history": not silent, "user_expressions": {},
            "allow_stdin": False, "stop_on_error": True}


def parent_id(message: dict[str, Any]) -> str | None:
    """The msg_id of the request a message answers, if any."""
    parent = message.get("parent_header")
    return parent.get("msg_id") if isinstance(parent, dict) else None


def import_error(what: str) -> KernelError:
    """The error when jupyter_client (or the WebSocket client) is not installed."""
    return KernelError(f"Jupyter kernels need {what}, which is not installed; {INSTALL_HINT}")


def missing_kernel(name: str, available: list[str], where: str) -> KernelError:
    """The error for a kernelspec that does not exist."""
    listed = ", ".join(sorted(available)) or "none"
    return KernelError(f"no Jupyter kernel named {name!r} {where}; available: {listed}")
