"""Persistent language runners for interp: Python, shell (bash) and Node, plus a registry."""

from .base import ProcessRunner, Runner, RunnerConfig, RunnerError, RunnerStartError
from .events import Event, Output, Result
from .output import CapturedOutput
from .registry import Registry, UnknownLanguage, default_registry

__all__ = [
    "CapturedOutput", "Event", "Output", "ProcessRunner", "Registry", "Result", "Runner",
    "RunnerConfig", "RunnerError", "RunnerStartError", "UnknownLanguage", "default_registry",
]
