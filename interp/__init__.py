"""interp: a local terminal agent that runs model-proposed code after you approve it."""

from __future__ import annotations

__version__ = "0.1.0.dev0"

_LAZY = {
    "Session": ("interp.core.session", "Session"),
    "SessionConfig": ("interp.core.session", "SessionConfig"),
    "model_for": ("interp.models.reach", "model_for"),
    "LiteLLMModel": ("interp.models.litellm.model", "LiteLLMModel"),
    "Decision": ("interp.approval.decision", "Decision"),
    "Proposal": ("interp.approval.decision", "Proposal"),
    "auto_approve": ("interp.approval.decision", "auto_approve"),
}


def __getattr__(name: str):
    """Import the library API on first use, so `interp --version` stays fast."""
    if name not in _LAZY:
        raise AttributeError(f"module 'interp' has no attribute {name!r}")
    from importlib import import_module

    module, attr = _LAZY[name]
    return getattr(import_module(module), attr)


__all__ = ["__version__", *_LAZY]
