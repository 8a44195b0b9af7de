"""Blocks that only install packages: the report asks for the task's code next, and an install
that installed nothing lets failed code count as failed still. Real shell and pip."""

from __future__ import annotations

import sys

import pytest
from session_kit import of, py, run
from test_session_repeats import Sampled, notices, told

from interp.core.checks.installs import (INSTALLED_NEXT, NOTHING_INSTALLED, installed_nothing,
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


# Qwen2.5-Coder-1.5B (a real transcript): told a module has no such function (the note named
# the one it has), it ran `pip install --upgrade numpy`, got "Requirement already satisfied"
# and answered "approximately 1.0" from pip's log.
FAILING = py("import math\narea = math.trapz([1, 2], [0, 1])\nprint(area)")
INSTALL_NOTHING = f"```shell\n{sys.executable} -m pip install --disable-pip-version-check pip\n```"


def test_an_install_that_installed_nothing_asks_for_changed_code(server, make_session):
    server.script([FAILING, INSTALL_NOTHING, FAILING, "unused", "It fails."])
    events = run(make_session(server, tools="off", model_cls=Sampled), "What is the area?")
    assert [e["status"] for e in of(events, "block.finished")] == ["error", "ok"]
    assert told(server, 2).endswith(f"Your task: What is the area?\n{NOTHING_INSTALLED}")
    assert notices(events)[-1] == ("The model proposed the code of block 1 again, which failed; "
                                   "it was not run. Asking again with sampling.")


def test_after_an_install_the_task_s_code_is_asked_for(server, make_session):
    server.script([f"```shell\n{sys.executable} -m pip install --help > /dev/null\n```", "ok"])
    run(make_session(server, tools="off"), "What is the area?")
    assert told(server, 1).endswith(f"Your task: What is the area?\n{INSTALLED_NEXT}")


def test_an_install_that_installed_nothing_proposed_again_is_asked_again(server, make_session):
    """The same model, after the note above, proposed the same install five times until
    --max-turns: pip's log differs each run by the addresses it prints."""
    server.script([FAILING, INSTALL_NOTHING, INSTALL_NOTHING, "The area could not be computed."])
    events = run(make_session(server, tools="off", model_cls=Sampled), "What is the area?")
    assert [e["status"] for e in of(events, "block.finished")] == ["error", "ok"]
    assert notices(events)[-1] == ("The model proposed the code of block 2 again, which "
                                   "installed nothing; it was not run. Asking again with "
                                   "sampling.")


@pytest.mark.fast
def test_a_module_pip_installs_that_is_missing_gets_the_install_proposed():
    from check_kit import record, view

    from interp.core.checks.installs import missing_package

    failed = [record(3, "import sklearn", "Traceback (most recent call last):\n"
                     "ModuleNotFoundError: No module named 'sklearn.linear_model'\n", status="error")]
    request = missing_package(view("Fit a line.", records=failed, new=1))
    assert request is not None and request.block.code == "%pip install scikit-learn"
    assert request.block.language == "python" and not request.retracts
    unknown = [record(3, "import mything", "ModuleNotFoundError: No module named 'mything'\n",
                      status="error")]
    assert missing_package(view("Use it.", records=unknown, new=1)) is None  # not a known package


def _wheel(folder, name: str) -> None:
    """A wheel of a one-module package `name` (version 0.1), built by hand: pip installs it
    from `folder` without the network."""
    import base64
    import hashlib
    import zipfile

    files = {f"{name}.py": "def tabulate(rows):\n    return '\\n'.join(' '.join(map(str, r)) for r in rows)\n",
             f"{name}-0.1.dist-info/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n",
             f"{name}-0.1.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                                          "Tag: py3-none-any\n"}
    record = [f"{path},sha256={base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b'=').decode()},"
              f"{len(text.encode())}" for path, text in files.items()]
    files[f"{name}-0.1.dist-info/RECORD"] = "\n".join(record + [f"{name}-0.1.dist-info/RECORD,,"]) + "\n"
    with zipfile.ZipFile(folder / f"{name}-0.1-py3-none-any.whl", "w") as wheel:
        for path, text in files.items():
            wheel.writestr(path, text)


def test_a_missing_module_is_installed_through_approval_and_the_model_goes_on(
        server, make_session, tmp_path, monkeypatch):
    """A real Python without the package (a fresh venv) and a block that imports it: interp
    proposes `%pip install` in that Python, it runs once approved (pip installs from a local
    folder here), and the model is asked to run its code."""
    import venv

    from interp.approval.decision import Decision
    from languages import RunnerConfig

    env, wheels = tmp_path / "env", tmp_path / "wheels"
    wheels.mkdir()
    _wheel(wheels, "tabulate")
    venv.create(env, with_pip=True)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheels))
    seen = []

    def approve(proposal):
        seen.append((proposal.language, proposal.code))
        return Decision(run=True)

    block = "import tabulate\nprint(tabulate.tabulate([[1, 2]]))"
    server.script([py(block), py(block), "It printed 1 2."])
    session = make_session(server, tools="off",
                           runner=RunnerConfig(cwd=str(make_session.work), python=str(env / "bin" / "python")))
    session.approver = approve
    events = run(session, "Print a table of 1 and 2 with tabulate.")
    assert seen == [("python", block), ("python", "%pip install tabulate"), ("python", block)]
    assert [e["status"] for e in of(events, "block.finished")] == ["error", "ok", "ok"]
    assert [n["check"] for n in of(events, "notice") if n.get("check")] == [
        "missing-package", "only-installed"]
    assert told(server, 1).endswith(INSTALLED_NEXT)
    assert "1 2" in told(server, 2)
