"""What the model is told about a block: its output, how it ended, and hints."""

from __future__ import annotations

import os
import re
import sys

from languages import Result


def describe_result(language: str, result: Result, ran_code: str | None = None, *,
                    files: str = "", python: str | None = None) -> str:
    """What the model is told after a block ran: bounded output (with the text of each figure
    and table it showed), the files it changed, a hint for a missing data package, and how it
    ended. `files` is workspace.describe's line; `python` the interpreter that ran the block."""
    parts = []
    if ran_code is not None:
        parts.append(f"The user edited the code before running it. The code that ran:\n"
                     f"```{language}\n{ran_code}\n```")
    text = result.model_text().rstrip("\n")
    parts.append(f"Output:\n{fence(text)}" if text else "No output.")
    if language == "python" and not result.ok and (hint := missing_package_hint(text, python)):
        parts.append(hint)
    if files:
        parts.append(files)
    parts.append(f"Result: {result.summary()}.")
    return "\n".join(parts)



def fence(text: str, language: str = "") -> str:
    """text in a code fence longer than any run of backticks inside it."""
    ticks = "`" * max(3, max(map(len, re.findall("`+", text)), default=0) + 1)
    return f"{ticks}{language}\n{text}\n{ticks}"



# Modules data code often needs -> the package that provides them; "data" marks interp[data].
DATA_PACKAGES = {
    "pandas": ("pandas", True), "matplotlib": ("matplotlib", True),
    "openpyxl": ("openpyxl", True), "nbformat": ("nbformat", True),
    "numpy": ("numpy", False), "scipy": ("scipy", False), "seaborn": ("seaborn", False),
    "xlrd": ("xlrd", False), "pyarrow": ("pyarrow", False), "polars": ("polars", False),
    "plotly": ("plotly", False), "statsmodels": ("statsmodels", False),
    "tabulate": ("tabulate", False), "sklearn": ("scikit-learn", False),
    "PIL": ("pillow", False), "yaml": ("pyyaml", False),
}



_MISSING = re.compile(r"ModuleNotFoundError: No module named '([\w.]+)'")



def missing_package_hint(output: str, python: str | None = None) -> str:
    """A one-line install hint when `output` shows a known data package missing, else ""."""
    found = _MISSING.findall(output)
    if not found:
        return ""
    module = found[-1].split(".")[0]
    if module not in DATA_PACKAGES:
        return ""
    package, in_extra = DATA_PACKAGES[module]
    where = f" ({python})" if python else ""
    pip = f"{python} -m pip" if python else "pip"
    text = (f"Hint: {package} is not installed in the Python that runs the blocks{where}; "
            f"install it with `{pip} install {package}`")
    if in_extra and (python is None or _same_env(python, sys.executable)):
        text += " (or all of interp's data packages with `pip install 'interp[data]'`)"
    return text + ", or do without it."



def describe_decline(reason: str | None, policy: bool = False) -> str:
    """What the model is told when a block was not run."""
    who = "denied by policy" if policy else "declined by the user"
    return f"The block was {who} and did not run." + (f" Reason: {reason}" if reason else "")



def _same_env(python: str, other: str) -> bool:
    """Whether two interpreter paths live in the same bin directory (the same environment)."""
    return os.path.dirname(os.path.abspath(python)) == os.path.dirname(os.path.abspath(other))
