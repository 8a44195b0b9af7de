"""Shared fixtures: a scripted OpenAI-compatible server and a way to run the real `interp`;
and the `fast` tier's rule: a test marked fast starts no process and opens no socket."""

from __future__ import annotations

import signal
import sys

import pexpect
import pytest

from fake_openai import FakeOpenAI
from helpers import interp_cmd, make_interp_env, model_args
from pty_terminal import Term

pytest_plugins = ["local_fixtures"]  # --local: real GGUF models, the local_model tier


@pytest.fixture
def fake_server():
    """A FakeOpenAI server on 127.0.0.1 with an empty script."""
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def interp_env(tmp_path, monkeypatch):
    """Environment for a real `interp` process: private config/data dirs, no real API keys."""
    return make_interp_env(tmp_path)


@pytest.fixture
def spawn(interp_env, fake_server):
    """Start the real interp on the fake server: spawn(*extra_args, env={...})."""
    terms: list[Term] = []

    def start(*extra: str, env: dict | None = None) -> Term:
        cmd = interp_cmd() + model_args(fake_server) + list(extra)
        # TERM is a real terminal type; nothing answers prompt_toolkit's cursor-position
        # requests in a bare pty, so tell it not to ask (else it prints a warning and waits).
        full_env = dict(interp_env["env"], TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1", **(env or {}))
        child = pexpect.spawn(cmd[0], cmd[1:], env=full_env, cwd=str(interp_env["cwd"]),
                              dimensions=(40, 120), encoding="utf-8", timeout=30)
        term = Term(child)
        terms.append(term)
        return term

    yield start
    for term in terms:
        if term.child.isalive():
            term.child.close(force=True)


# -- the fast tier ------------------------------------------------------------------------------
# `pytest -m fast` runs the pure units. An audit hook (it cannot be removed, so it only records
# while a fast test runs) fails a fast test that starts a process or opens a socket: the tier
# stays fast because nothing slow can sneak into it.
_SLOW_EVENTS = frozenset({"subprocess.Popen", "os.fork", "os.forkpty", "os.posix_spawn",
                          "os.exec", "os.system", "pty.spawn", "socket.connect", "socket.bind"})
_fast_watch: dict[str, list[str] | None] = {"seen": None}


def _audit(event: str, args: tuple) -> None:
    seen = _fast_watch["seen"]
    if seen is not None and event in _SLOW_EVENTS:
        seen.append(event)


sys.addaudithook(_audit)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """`-m fast` runs in this process: starting workers (each collects the whole suite) would
    take longer than the tier itself."""
    if (config.option.markexpr or "").strip() == "fast":
        config.option.numprocesses = 0
        config.option.dist = "no"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    fast = item.get_closest_marker("fast") is not None
    _fast_watch["seen"] = [] if fast else None
    try:
        yield
    finally:
        _fast_watch["seen"] = None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    seen = _fast_watch["seen"]
    report = outcome.get_result()
    if seen and report.passed and call.when == "teardown":
        report.outcome = "failed"
        report.longrepr = (f"{item.nodeid} is marked fast but used {', '.join(sorted(set(seen)))}: "
                           f"a fast test starts no process and opens no socket (drop the mark)")


@pytest.fixture(autouse=True)
def _sigint_left_alone():
    """A test must leave SIGINT as it found it: an ignored SIGINT is inherited by every process
    started later in this worker, and Ctrl-C tests elsewhere would fail for no reason of theirs."""
    before = signal.getsignal(signal.SIGINT)
    yield
    after = signal.getsignal(signal.SIGINT)
    if after is not before:
        signal.signal(signal.SIGINT, before)
        pytest.fail(f"the test left the SIGINT handler set to {after!r} (restored)")
