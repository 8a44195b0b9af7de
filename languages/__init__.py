"""Persistent language runners for interp: Python, shell (bash, zsh) and Node, plus a registry."""

from .process.limits import Limits
from .process.runner import ProcessRunner
from .process.sandbox import Sandbox, SandboxError, check_sandbox
from .process.spawn import RunnerError, RunnerStartError
from .protocol import Runner, RunnerConfig
from .records import CapturedOutput, Display, Event, Output, Result
from .registry import Registry, UnknownLanguage, default_registry

__all__ = [
    "CapturedOutput", "Display", "Event", "Output", "ProcessRunner", "Registry", "Result", "Runner",
    "RunnerConfig", "RunnerError", "RunnerStartError", "UnknownLanguage", "default_registry",
    "Limits", "Sandbox", "SandboxError", "check_sandbox",
]
