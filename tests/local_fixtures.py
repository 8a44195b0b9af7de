"""Fixtures for the local model (`--local`): real GGUF models and a marker for the slow tier.

Tests marked `local_model` (the 1.5B default model) are skipped unless selected with
`pytest -m local_model`. Tests that start llama.cpp skip, saying how to install it, when the
xllamacpp package is missing (the `test` extra includes it).
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pexpect
import pytest

from helpers import hang_guard, interp_cmd
from pty_terminal import Term

from real_models import QWEN_CODER_05B, QWEN_CODER_15B, SMOLLM2_135M, FetchError, fetch

SLOW_TIER = "slow tier (the 1.1 GB default model): run it with  pytest -m local_model"


def _xllamacpp_installed() -> bool:
    from interp.models.local.server import xllamacpp_installed

    return xllamacpp_installed()


needs_xllamacpp = pytest.mark.skipif(
    not _xllamacpp_installed(),
    reason="xllamacpp is not installed: pip install -e '.[local]' (the [test] extra has it)")


def pytest_collection_modifyitems(config, items) -> None:
    """Skip the slow tier unless `-m` names it."""
    if "local_model" in (config.getoption("markexpr", "") or ""):
        return
    skip = pytest.mark.skip(reason=SLOW_TIER)
    for item in items:
        if "local_model" in item.keywords:
            item.add_marker(skip)


def _fetch(model) -> Path:
    try:
        return fetch(model)
    except FetchError as exc:
        pytest.fail(f"could not get the test model {model.name}: {exc}")


@pytest.fixture(scope="session")
def smol_gguf() -> Path:
    """SmolLM2-135M-Instruct Q4_1 (98 MB, 8k context): fast to load, too small for tasks."""
    return _fetch(SMOLLM2_135M)


@pytest.fixture(scope="session")
def qwen05_gguf() -> Path:
    """Qwen2.5-Coder-0.5B-Instruct Q4 (491 MB, 32k context): the smallest that does a task."""
    return _fetch(QWEN_CODER_05B)


@pytest.fixture(scope="session")
def qwen15_gguf() -> Path:
    """Qwen2.5-Coder-1.5B-Instruct Q4_K_M: byte for byte interp's default download."""
    return _fetch(QWEN_CODER_15B)


@pytest.fixture
def own_copy(tmp_path):
    """own_copy(path): a symlink to a model under this test's tmp_path, so that the server
    process it starts can be told from any other (its command line names the link)."""
    def link(path: Path) -> Path:
        target = tmp_path / "models" / path.name
        target.parent.mkdir(exist_ok=True)
        os.symlink(path, target)
        return target

    return link


def servers_for(model: Path) -> list[int]:
    """PIDs of local model server processes started for `model` (by its path)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"interp.models.local.serve" in cmdline and any(str(model).encode() in part
                                                           for part in cmdline):
            try:
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if state != "Z":
                pids.append(int(entry.name))
    return pids


# -- driving the real interp on a local model --------------------------------------------
def pty(interp_env, *args: str, env: dict | None = None) -> Term:
    """The real interp in a pseudo-terminal, with no model configured unless `args` say so."""
    full = dict(interp_env["env"], TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1",
                XDG_CACHE_HOME=str(interp_env["cwd"].parent / "cache"),
                TMPDIR=str(interp_env["cwd"].parent), **(env or {}))  # llama.cpp's log too
    cmd = interp_cmd() + list(args)
    return Term(pexpect.spawn(cmd[0], cmd[1:], env=full, cwd=str(interp_env["cwd"]),
                              dimensions=(40, 120), encoding="utf-8", timeout=30))


@pytest.fixture
def local_pty(interp_env):
    """local_pty(*args, env=...): `pty` for this test; whatever is left running is closed."""
    terms: list[Term] = []

    def start(*args: str, env: dict | None = None) -> Term:
        terms.append(pty(interp_env, *args, env=env))
        return terms[-1]

    yield start
    for term in terms:
        if term.child.isalive():
            term.child.close(force=True)


def finish(term: Term, guard: float = 120) -> int:
    """The exit status once interp has gone (a hang guard, not a timing assertion)."""
    with hang_guard(guard, "interp did not exit"):
        return term.wait()


def loose(text: str) -> str:
    """A pattern for `text` as rich may wrap it: any run of spaces may be a line break."""
    return r"\s+".join(re.escape(word) for word in text.split())


def cached(interp_env) -> dict:
    """interp_env with an empty private cache dir (no downloaded default model)."""
    env = dict(interp_env["env"], XDG_CACHE_HOME=str(interp_env["cwd"].parent / "cache"))
    return dict(interp_env, env=env)


def wait_gone(path: Path, guard: float = 60) -> None:
    with hang_guard(guard, f"the server for {path} outlived interp"):
        while servers_for(path):
            time.sleep(0.1)
