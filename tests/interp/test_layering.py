"""No import runs up a floor: the parts below the command line never import `interp.cli`."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.fast  # reads source files only

ROOT = Path(__file__).resolve().parents[2]
BELOW_THE_CLI = ("interp/config", "interp/eval", "interp/core", "interp/models", "interp/storage",
                 "interp/acp", "interp/skills", "interp/hooks", "interp/mcp")


def imported_modules(source: str, package: str) -> set[str]:
    """Every module a file in `package` imports, lazily or not, relative imports made absolute
    (`from a import b` counts as both `a` and `a.b`)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(part for part in (base, node.module or "") if part)
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def cli_imports(source: str, package: str) -> list[str]:
    """The modules of `interp.cli` among a file's imports."""
    return sorted(name for name in imported_modules(source, package)
                  if name == "interp.cli" or name.startswith("interp.cli."))


def test_no_module_below_the_cli_imports_it():
    read = {}
    for folder in BELOW_THE_CLI:
        for path in sorted((ROOT / folder).rglob("*.py")):
            package = ".".join(path.relative_to(ROOT).parts[:-1])
            read[str(path.relative_to(ROOT))] = cli_imports(path.read_text(encoding="utf-8"),
                                                            package)
    assert {path: names for path, names in read.items() if names} == {}
    assert {folder for folder in BELOW_THE_CLI
            if not any(path.startswith(folder + "/") for path in read)} == set()


def test_lazy_relative_and_aliased_imports_are_seen():
    source = ("def f():\n    from interp.cli.settings import load_settings\n"
              "from ..cli import main\nimport interp.cli.start as start\nimport interp.core\n")
    assert cli_imports(source, "interp.eval") == [
        "interp.cli", "interp.cli.main", "interp.cli.settings",
        "interp.cli.settings.load_settings", "interp.cli.start"]
    assert cli_imports("from . import settings\n", "interp.cli") == ["interp.cli",
                                                                      "interp.cli.settings"]
