"""Shared helpers for the runner tests: event collection with a hang guard, runner factories."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from helpers import HANG_GUARD, Hang, hang_guard  # noqa: F401  (used by the test modules)
from languages.process.runner import ProcessRunner
from languages.protocol import RunnerConfig
from languages.records import Display, Output, Result



def run_events(runner, code: str, guard: float = HANG_GUARD, **kw) -> list:
    """Every event of one run, in arrival order; exactly one Result, and it is last."""
    with hang_guard(guard):
        events = list(runner.run(code, **kw))
    assert events and isinstance(events[-1], Result), events[-1:]
    assert all(isinstance(e, Output) for e in events[:-1])
    return events


def _collect(runner, code: str, guard: float = HANG_GUARD, **kw) -> tuple[str, Result]:
    events = run_events(runner, code, guard, **kw)
    return "".join(e.text for e in events[:-1]), events[-1]


@pytest.fixture
def collect() -> Callable[..., tuple[str, Result]]:
    """collect(runner, code, **kw) -> (output text, Result)."""
    return _collect


@pytest.fixture
def events():
    """events(runner, code, **kw) -> list of events."""
    return run_events


@pytest.fixture
def make_runner():
    """make_runner(cls, **config) -> a started runner that is stopped after the test."""
    made: list[ProcessRunner] = []

    def make(cls, start: bool = True, **config) -> ProcessRunner:
        config.setdefault("grace", 0.5)
        runner = cls(RunnerConfig(**config))
        made.append(runner)
        if start:
            with hang_guard():
                runner.start()
        return runner

    yield make
    for runner in made:
        runner.stop()


def child_pids() -> set[int]:
    """Live (non-zombie) processes whose parent is this test process."""
    found = set()
    me = os.getpid()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if int(fields[1]) == me and fields[0] != "Z":
            found.add(int(entry.name))
    return found


@pytest.fixture(scope="module")
def no_leaked_processes():
    """After a module's tests, no process started by its runners may be left running."""
    before = child_pids()
    yield
    deadline = time.monotonic() + 5
    while (left := child_pids() - before) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not left, f"runner processes left behind: {sorted(left)}"


def gone(pid: int, wait: float = 5.0) -> bool:
    """True once pid does not exist or is a zombie (waits at most `wait` seconds for reaping)."""
    deadline = time.monotonic() + wait
    while True:
        try:
            state = Path(f"/proc/{pid}/stat").read_text()
            if state[state.rfind(")") + 2] in "ZX":
                return True
        except OSError:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True
            except PermissionError:
                pass
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)


@pytest.fixture
def pid_gone():
    """pid_gone(pid, wait=5.0) -> True once the process no longer runs."""
    return gone


@pytest.fixture
def guard():
    """guard(seconds=HANG_GUARD): a context manager that fails a hung test instead of blocking."""
    return hang_guard


@pytest.fixture
def run(guard):
    """run(runner, code, **kw) -> (output text, displays, Result); all output comes first."""
    def run(runner, code, **kw):
        with guard():
            evs = list(runner.run(code, **kw))
        assert evs and isinstance(evs[-1], Result)
        body = evs[:-1]
        assert all(isinstance(e, (Output, Display)) for e in body)
        first = next((i for i, e in enumerate(body) if isinstance(e, Display)), len(body))
        assert all(isinstance(e, Display) for e in body[first:]), "displays come after all output"
        displays = body[first:]
        assert tuple(displays) == evs[-1].displays
        return "".join(e.text for e in body[:first]), displays, evs[-1]
    return run
