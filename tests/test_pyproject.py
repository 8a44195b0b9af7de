"""Every third-party package interp's code imports is declared in pyproject.toml."""

from __future__ import annotations

import ast
import functools
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

pytestmark = pytest.mark.fast  # reads source files and installed metadata only

ROOT = Path(__file__).resolve().parents[1]
FIRST_PARTY = {"interp", "languages"}
# Code that runs in another program's Python, which brings these itself.
ELSEWHERE = {"IPython": "languages/_ipython_tables.py runs inside an IPython kernel",
             "traitlets": "languages/_ipython_tables.py runs inside an IPython kernel"}


def third_party_imports(path: Path) -> set[str]:
    """Top-level names a file imports that are neither the standard library, interp's own,
    nor a module beside it (driver scripts import their neighbours by path)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return {name for name in names if name not in sys.stdlib_module_names
            and name not in FIRST_PARTY and not (path.parent / f"{name}.py").exists()}


@functools.cache
def providers() -> dict[str, list[str]]:
    """Import name -> the installed distributions that provide it."""
    return packages_distributions()


def normalized(requirement: str) -> str:
    return re.sub(r"[-_.]+", "-", re.match(r"[A-Za-z0-9._-]+", requirement)[0]).lower()


def declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project.get("optional-dependencies", {})
    return {normalized(r) for r in project["dependencies"]} | {
        normalized(r) for name, reqs in extras.items() if name != "test" for r in reqs}


def undeclared(imports: dict[str, set[str]], known: set[str]) -> dict[str, list[str]]:
    """Import name -> the files importing it, for names no declared distribution provides."""
    return {name: sorted(files) for name, files in imports.items()
            if name not in ELSEWHERE
            and not {normalized(d) for d in providers().get(name, [name])} & known}


def test_every_imported_package_is_declared():
    imports: dict[str, set[str]] = {}
    for folder in FIRST_PARTY:
        for path in (ROOT / folder).rglob("*.py"):
            for name in third_party_imports(path):
                imports.setdefault(name, set()).add(str(path.relative_to(ROOT)))
    assert {"litellm", "httpx", "typer"} <= set(imports)  # the files were read
    assert undeclared(imports, declared()) == {}


def test_an_undeclared_import_is_named_with_its_files():
    imports = {"httpx": {"interp/models/direct.py"}, "rich": {"interp/ui/render.py"}}
    assert undeclared(imports, {"rich"}) == {"httpx": ["interp/models/direct.py"]}
