"""The Python runner, and its driver: sources in `driver/` run inside the user's Python."""

from .driver_source import console_paste
from .runner import PythonRunner, choose_python, python_first

__all__ = ["PythonRunner", "choose_python", "console_paste", "python_first"]
