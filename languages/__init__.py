"""Persistent language runners for interp: Python, shell (bash) and Node, plus a registry."""

from .base import ProcessRunner
from .events import Display, Event, Output, Result
from .limits import Limits
from .output import CapturedOutput
from .procs import RunnerError, RunnerStartError
from .protocol import Runner, RunnerConfig
from .registry import Registry, UnknownLanguage, default_registry
from .sandbox import Sandbox, SandboxError, check_sandbox

__all__ = [
    "CapturedOutput", "Display", "Event", "Output", "ProcessRunner", "Registry", "Result", "Runner",
    "RunnerConfig", "RunnerError", "RunnerStartError", "UnknownLanguage", "default_registry",
    "Limits", "Sandbox", "SandboxError", "check_sandbox",
]
