"""Persistent language runners for interp: Python, shell (bash, zsh) and Node, plus a registry.

The names below are loaded on first use, so that importing one light module of the package
(a setting's choices, say) does not start up every runner's machinery.
"""

from __future__ import annotations

from importlib import import_module

_WHERE = {
    "Limits": ".process.limits", "ProcessRunner": ".process.runner",
    "Sandbox": ".process.sandbox", "SandboxError": ".process.sandbox",
    "check_sandbox": ".process.sandbox", "RunnerError": ".process.spawn",
    "RunnerStartError": ".process.spawn", "Runner": ".protocol", "RunnerConfig": ".protocol",
    "CapturedOutput": ".records", "Display": ".records", "Event": ".records",
    "Output": ".records", "Result": ".records", "Registry": ".registry",
    "UnknownLanguage": ".registry", "default_registry": ".registry",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(_WHERE[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})
