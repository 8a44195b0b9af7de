"""Helpers shared by test modules in different folders."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from fake_openai import FakeOpenAI

HANG_GUARD = 60.0  # seconds; only a guard against a hung test, never a timing assertion


class Hang(Exception):
    """Something did not finish within the hang guard."""


@contextmanager
def hang_guard(seconds: float = HANG_GUARD, what: str = "no result") -> Iterator[None]:
    """Raise Hang in the main thread if the body runs longer than `seconds`."""
    def alarm(signum, frame):
        raise Hang(f"{what} within {seconds:g} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def config_file(interp_env) -> Path:
    """The config.toml a real `interp` run with `interp_env` reads."""
    return Path(interp_env["env"]["XDG_CONFIG_HOME"]) / "interp" / "config.toml"


def write_config(interp_env, text: str) -> Path:
    """Write that config.toml."""
    path = config_file(interp_env)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def make_interp_env(tmp_path: Path) -> dict:
    """What the interp_env fixture returns, for any directory (e.g. a module-scoped one)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("INTERP_") and not k.endswith("_API_KEY")}
    env.update({
        "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data"),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True", "NO_COLOR": "1", "COLUMNS": "100",
        "PYTHONUNBUFFERED": "1",
        "PIP_NO_INDEX": "1",  # an install interp proposes never reaches the network in a test
    })
    env.pop("EDITOR", None)
    env.pop("VISUAL", None)
    env.pop("VIRTUAL_ENV", None)  # Python blocks run in interp's own Python
    work = tmp_path / "work"
    work.mkdir()
    return {"env": env, "cwd": work, "data": tmp_path / "data"}


def interp_cmd() -> list[str]:
    """The installed `interp` script next to this interpreter, or `python -m interp`."""
    script = Path(sys.executable).with_name("interp")
    return [str(script)] if script.exists() else [sys.executable, "-m", "interp"]


def model_args(server: FakeOpenAI, name: str = "fake-model") -> list[str]:
    """Flags that point interp at the fake server."""
    return ["--model", f"openai/{name}", "--api-base", server.api_base, "--api-key", "sk-test-123456"]


def run_interp(args: list[str], interp_env: dict, *, input: str | None = None,
               timeout: float = 120) -> subprocess.CompletedProcess:
    """Run the real `interp` to completion with stdin not a terminal."""
    return subprocess.run(interp_cmd() + args, input=input or "", capture_output=True, text=True,
                          env=interp_env["env"], cwd=interp_env["cwd"], timeout=timeout)


def alive(pid: int) -> bool:
    """Whether the process exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2:].split()[0] != "Z"


def wait_gone(pids: list[int], seconds: float = 30.0) -> list[int]:
    """The processes still alive after waiting up to `seconds` for all of them to end."""
    deadline = time.monotonic() + seconds
    while (left := [pid for pid in pids if alive(pid)]) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def run_main(args: list[str], interp_env: dict, *, before: str = "",
             after: str = "") -> subprocess.CompletedProcess:
    """interp's `main(args)` in a fresh Python, with its exit status: `before` runs first (to
    hide a module, say), `after` once main has ended (to print what it imported, say)."""
    code = (f"import sys\n{before}\nfrom interp.cli.main import main\nstatus = 0\ntry:\n"
            f"    main(sys.argv[1:])\nexcept SystemExit as exc:\n    status = exc.code\n"
            f"{after}\nsys.exit(status)")
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env=interp_env["env"], cwd=interp_env["cwd"], timeout=60)


class Scenarios:
    """Slow `interp` runs, registered per test module and played once, concurrently.

    `@scenarios` (or `@scenarios(runs=N)` for chains of N runs, started first) registers
    fn(server, env) -> dict; `scenarios.play(request, tmp_path_factory)` plays those whose
    `test_<name>` is selected and returns outcome(name) -> the dict (or raises its error)."""

    def __init__(self) -> None:
        self.registered: dict[str, Callable] = {}

    def __call__(self, fn=None, *, runs: int = 1):
        if fn is None:
            return lambda f: self(f, runs=runs)
        fn.runs = runs
        self.registered[fn.__name__] = fn
        return fn

    def play(self, request, tmp_path_factory) -> Callable[[str], dict]:
        """Run the selected scenarios in a thread pool; returns the outcome lookup."""
        selected = {item.name for item in request.session.items}
        wanted = sorted((n for n in self.registered if f"test_{n}" in selected),
                        key=lambda n: -self.registered[n].runs)
        with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
            futures = {n: pool.submit(_play, self.registered[n], tmp_path_factory.mktemp(n))
                       for n in wanted}
            done = {n: (f.result() if f.exception() is None else f.exception())
                    for n, f in futures.items()}

        def get(name: str) -> dict:
            if isinstance(done[name], BaseException):
                raise done[name]
            return done[name]

        return get


def _play(fn, directory: Path) -> dict:
    env = make_interp_env(directory)
    with FakeOpenAI() as server:
        result = fn(server, env)
        return dict(result, server=server, requests=server.requests, env=env)


def drain(events: Iterator) -> tuple[list, object]:
    """The items a generator yields, and what it returns."""
    out = []
    try:
        while True:
            out.append(next(events))
    except StopIteration as stop:
        return out, stop.value
