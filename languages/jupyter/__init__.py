"""Blocks run in Jupyter kernels, local (kernelspecs) or behind a gateway (REST + WebSocket)."""

from .kernel import KernelChoice
from .runner import JupyterRunner

__all__ = ["JupyterRunner", "KernelChoice"]
