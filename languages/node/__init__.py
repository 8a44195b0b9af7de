"""The Node runner, and its driver `node_driver.js` (package data, run by node)."""

from .runner import NodeRunner

__all__ = ["NodeRunner"]
