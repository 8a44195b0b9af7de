"""Packages: a block that failed on a module pip can install gets the install proposed, in the
blocks' own Python; a block that only installs packages does not do the task, and one that
installed nothing ("Requirement already satisfied") changed nothing a failed block met."""

from __future__ import annotations

import re

from interp.core.checks.base import Proposed, Request, TaskView

# pip install x, python3 -m pip install x, %pip install x, !pip install x, uv pip install x,
# conda install x, npm install x, npm i x, yarn add x
_INSTALL = re.compile(r"[%!]?(?:sudo\s+)?(?:\S*python[\d.]*\s+-m\s+)?"
                      r"(?:(?:uv\s+)?pip3?|conda|mamba|npm|pnpm|yarn)\s+(?:install|add|i)\b")
_MORE = re.compile(r"[;|]|&&")  # a line that runs more than the install
_NOTHING = re.compile(r"^Requirement already satisfied:", re.MULTILINE)
_INSTALLED = re.compile(r"^Successfully installed\b", re.MULTILINE)
INSTALLED_NEXT = ("That block only installed packages, which does not do the task: now run the "
                  "code that does it.")
NOTHING_INSTALLED = ("That block installed nothing: the packages were already installed, so "
                     "the earlier error was not a missing package. Read that error's note, "
                     "change the code, and run it.")


def only_installs(language: str, code: str) -> bool:
    """Whether every line of a shell block, or of a Python block's magics, installs
    packages (comments and blank lines aside)."""
    if language not in ("shell", "bash", "sh", "zsh", "python"):
        return False
    lines = [line.strip() for line in code.splitlines()
             if line.strip() and not line.strip().startswith("#")]
    if language == "python" and not all(line.startswith(("%", "!")) for line in lines):
        return False
    return bool(lines) and all(_INSTALL.match(line) and not _MORE.search(line) for line in lines)


def installed_nothing(output: str) -> bool:
    """Whether pip's output says every package was already there."""
    return bool(_NOTHING.search(output)) and not _INSTALLED.search(output)


def after_installs(records) -> str | None:
    """The ask after blocks whose last ones (that ran) only installed packages, or None."""
    ran = [record for record in records if record.ran]
    tail = []
    for record in reversed(ran):
        if not only_installs(record.language, record.code):
            break
        tail.append(record)
    if not tail:
        return None
    return (NOTHING_INSTALLED if all(installed_nothing(r.output_text()) for r in tail)
            else INSTALLED_NEXT)


# Modules code often imports -> the package pip installs them from.
PACKAGES = {
    "pandas": "pandas", "numpy": "numpy", "scipy": "scipy", "matplotlib": "matplotlib",
    "seaborn": "seaborn", "sklearn": "scikit-learn", "statsmodels": "statsmodels",
    "openpyxl": "openpyxl", "xlrd": "xlrd", "xlsxwriter": "xlsxwriter", "pyarrow": "pyarrow",
    "polars": "polars", "plotly": "plotly", "tabulate": "tabulate", "PIL": "pillow",
    "yaml": "pyyaml", "bs4": "beautifulsoup4", "lxml": "lxml", "requests": "requests",
    "sympy": "sympy", "nbformat": "nbformat", "networkx": "networkx", "tqdm": "tqdm",
    "dateutil": "python-dateutil", "docx": "python-docx", "pptx": "python-pptx",
    "pypdf": "pypdf", "nltk": "nltk", "xgboost": "xgboost", "joblib": "joblib",
}
_MISSING = re.compile(r"ModuleNotFoundError: No module named '([\w.]+)'")


def missing_package(view: TaskView) -> Request | None:
    """A Python block that failed because a module pip installs is missing: interp proposes
    the install itself, in the Python that runs the blocks (`%pip install`), before the model
    goes on; the person approves it like any block."""
    ran = [r for r in view.latest if r.ran]
    last = ran[-1] if ran else None
    if last is None or last.language != "python" or last.status != "error":
        return None
    found = _MISSING.findall(last.output_text())
    package = PACKAGES.get(found[-1].split(".")[0]) if found else None
    if package is None:
        return None
    return Request(f"Block {last.index} failed because {package} is not installed in the Python "
                   f"that runs the blocks.", f"{package} is not installed in the Python that "
                   f"runs the blocks; proposing to install it.", retracts=False,
                   block=Proposed("python", f"%pip install {package}"))
