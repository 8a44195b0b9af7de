"""Blocks that only install packages: the report asks for the task's code next, and an install
that installed nothing lets failed code count as failed still. Real shell and pip."""

from __future__ import annotations

import sys

import pytest
from session_kit import of, py, run
from test_session_repeats import Sampled, notices, told

from interp.core.installs import (INSTALLED_NEXT, NOTHING_INSTALLED, installed_nothing,
                                  only_installs)


@pytest.mark.fast
@pytest.mark.parametrize("language, code, expected", [
    ("shell", "pip install --upgrade numpy", True),
    ("bash", "# first\npip3 install pandas openpyxl\nnpm i left-pad", True),
    ("shell", "/usr/bin/python3.11 -m pip install scipy", True),
    ("python", "%pip install sympy\n!pip install numpy", True),
    ("python", "import subprocess\n!pip install numpy", False),
    ("shell", "pip install numpy && python3 area.py", False),
    ("shell", "pip list", False),
    ("javascript", "npm install x", False),
    ("shell", "", False),
])
def test_only_install_lines_make_an_install_block(language, code, expected):
    assert only_installs(language, code) is expected


@pytest.mark.fast
def test_pip_saying_every_package_was_there_installed_nothing():
    assert installed_nothing("Requirement already satisfied: numpy in /x (2.4.6)\n")
    assert not installed_nothing("Requirement already satisfied: a\nSuccessfully installed b-1\n")
    assert not installed_nothing("Collecting sympy\nERROR: no network\n")


# Qwen2.5-Coder-1.5B on integrals-area-between-curves (2026-11-28): told numpy has no trapz
# (the note named trapezoid), it ran `pip install --upgrade numpy`, got "Requirement already
# satisfied" and answered "approximately 1.0" from pip's log.
FAILING = py("import math\narea = math.trapz([1, 2], [0, 1])\nprint(area)")
INSTALL_NOTHING = f"```shell\n{sys.executable} -m pip install --disable-pip-version-check pip\n```"


def test_an_install_that_installed_nothing_asks_for_changed_code(server, make_session):
    server.script([FAILING, INSTALL_NOTHING, FAILING, "unused", "It fails."])
    events = run(make_session(server, tools="off", model_cls=Sampled), "What is the area?")
    assert [e["status"] for e in of(events, "block.finished")] == ["error", "ok"]
    assert told(server, 2).endswith(f"Your task: What is the area?\n{NOTHING_INSTALLED}")
    assert notices(events) == ["The model proposed the code of block 1 again, which failed; it "
                               "was not run. Asking again with sampling (temperature 0.7)."]


def test_after_an_install_the_task_s_code_is_asked_for(server, make_session):
    server.script([f"```shell\n{sys.executable} -m pip install --help > /dev/null\n```", "ok"])
    run(make_session(server, tools="off"), "What is the area?")
    assert told(server, 1).endswith(f"Your task: What is the area?\n{INSTALLED_NEXT}")


def test_an_install_that_installed_nothing_proposed_again_is_asked_again(server, make_session):
    """The same model (2026-11-28, after the note above) proposed the same install five times
    until --max-turns: pip's log differs each run by the addresses it prints."""
    server.script([FAILING, INSTALL_NOTHING, INSTALL_NOTHING, "The area could not be computed."])
    events = run(make_session(server, tools="off", model_cls=Sampled), "What is the area?")
    assert [e["status"] for e in of(events, "block.finished")] == ["error", "ok"]
    assert notices(events) == ["The model proposed the code of block 2 again, which did not do "
                               "the task; it was not run. Asking again with sampling "
                               "(temperature 0.7)."]
