"""Persistent language runners for interp: Python, shell (bash) and Node, plus a registry."""

from .process.runner import ProcessRunner
from .records import Display, Event, Output, Result
from .process.limits import Limits
from .process.output_capture import CapturedOutput
from .process.spawn import RunnerError, RunnerStartError
from .protocol import Runner, RunnerConfig
from .registry import Registry, UnknownLanguage, default_registry
from .process.sandbox import Sandbox, SandboxError, check_sandbox

__all__ = [
    "CapturedOutput", "Display", "Event", "Output", "ProcessRunner", "Registry", "Result", "Runner",
    "RunnerConfig", "RunnerError", "RunnerStartError", "UnknownLanguage", "default_registry",
    "Limits", "Sandbox", "SandboxError", "check_sandbox",
]
