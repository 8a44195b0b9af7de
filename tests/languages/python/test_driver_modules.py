"""The Python driver is a package of real modules: each imports in interp's own Python (as
`languages.python.driver`) with no dependency beyond the standard library, and in the user's
Python it is `_interp_driver`, a name no module of theirs takes."""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

import pytest

from languages.python.driver_source import DRIVER, KERNEL_SETUP

pytestmark = pytest.mark.fast
FOLDER = Path(importlib.import_module("languages.python.driver").__file__).parent


@pytest.mark.parametrize("name", sorted(set(DRIVER + KERNEL_SETUP)))
def test_each_module_imports_and_needs_only_the_standard_library(name):
    module = importlib.import_module(f"languages.python.driver.{name}")
    assert module.__doc__
    tree = ast.parse((FOLDER / f"{name}.py").read_text())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module}
    kernel = {"IPython", "traitlets"} if name == "ipython_tables" else set()  # in a kernel, inside functions
    assert imported <= set(sys.stdlib_module_names) | kernel, imported - set(sys.stdlib_module_names)


def test_the_did_you_mean_helpers_work_by_import():
    from languages.python.driver.hints import abbreviates, closest

    assert abbreviates("qty", "quantity") and not abbreviates("qty", "price")
    assert closest("Price", ["price", "units"]) == ["price"]
    assert closest("amt", ["item", "amount", "amendment"]) == []  # two fit: say nothing
    assert closest("temprature", ["temperature", "sensor"]) == ["temperature"]
    labels = ["Country", "Economy (GDP per Capita)", "Health (Life Expectancy)", "Life"]
    assert closest("Life Expectancy", labels) == ["Health (Life Expectancy)"]  # words held
    assert closest("price", ["Unit Price", "price_change", "Priced"]) == ["Unit Price",
                                                                         "price_change"]
    assert closest("age", ["page_count", "stage"]) == []  # inside a word is no match
    assert closest("ab", ["the ab", "x ab y"]) == []  # too short to look for in names


def test_the_keys_a_key_error_names_are_read_from_each_form_pandas_raises():
    from languages.python.driver.hints import closest, missing_keys

    assert missing_keys("price") == ["price"] and missing_keys(3) == [3]
    assert missing_keys(["a", "b"]) == ["a", "b"]  # dropna(subset=[...])
    assert missing_keys("['a', 'b'] not in index") == ["a", "b"]
    assert missing_keys("['a'] not found in axis") == ["a"]
    assert missing_keys("None of [Index(['a', 'b'], dtype='str')] are in the [columns]") == ["a", "b"]
    assert missing_keys("Column not found: a") == ["a"]
    assert closest("speed", ["time", " speed"]) == [" speed"]
