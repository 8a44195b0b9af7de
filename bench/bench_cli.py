"""Benchmarks interp's command line and agent loop against baselines measured in the same run.

    python bench/bench_cli.py [--quick] [--json PATH]

1. startup: `interp --version` and `interp --help` wall time (median) next to
   `python -c "import typer"`; target: within 50 ms of that floor. Also the interactive time to
   the `> ` prompt next to `python -c "import litellm"`: the prompt must not wait for litellm.
2. loop: per-turn overhead of a library `Session` against the fake OpenAI server (instant
   replies, one `x = 1` block per turn): session wall time minus the time spent inside the
   real `litellm.completion` and its stream (timed by a wrapper) minus the runner's own block
   durations; target < 10 ms. A cross-check row replays the same requests through raw
   `litellm.completion`.

Speed targets live here, never as timed test assertions. See bench/README.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT), str(ROOT / "tests")]

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # as interp does: no network fetch

from bench_runners import guarded, report, row, skip  # noqa: E402

STARTUP_SLACK_MS = 50.0
TURN_TARGET_MS = 10.0
BLOCK = "Setting it.\n```python\nx = 1\n```\n"


def blocks(turns: int) -> list[str]:
    """`turns` replies, each a different block: the same block again would be a loop."""
    return [BLOCK.replace("x = 1", f"x = {n}") for n in range(turns)]


# -- helpers ------------------------------------------------------------------
def interp_cmd() -> list[str]:
    """The installed `interp` script next to this interpreter, or `python -m interp`."""
    script = Path(sys.executable).with_name("interp")
    return [str(script)] if script.exists() else [sys.executable, "-m", "interp"]


def private_env(tmp: Path) -> dict[str, str]:
    """The environment for child processes: private config/data dirs, no real keys."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("INTERP_") and not k.endswith("_API_KEY")}
    env.update(XDG_CONFIG_HOME=str(tmp / "config"), XDG_DATA_HOME=str(tmp / "data"),
               LITELLM_LOCAL_MODEL_COST_MAP="True", NO_COLOR="1")
    return env


def wall(cmd: list[str], env: dict[str, str]) -> float:
    """Seconds from spawn to exit; the command must succeed."""
    t = time.perf_counter()
    done = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          stdin=subprocess.DEVNULL, timeout=120)
    took = time.perf_counter() - t
    if done.returncode:
        raise RuntimeError(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr[-200:]!r}")
    return took


# -- 1. startup -----------------------------------------------------------------
def bench_startup(runs: int, env: dict[str, str]) -> None:
    floor_cmd = [sys.executable, "-c", "import typer"]
    cmds = {"--version": interp_cmd() + ["--version"], "--help": interp_cmd() + ["--help"]}
    for cmd in [floor_cmd, *cmds.values()]:
        wall(cmd, env)  # warm the page cache and .pyc files
    times: dict[str, list[float]] = {"floor": [], **{k: [] for k in cmds}}
    for _ in range(runs):  # interleaved, so drift hits every figure alike
        times["floor"].append(wall(floor_cmd, env))
        for name, cmd in cmds.items():
            times[name].append(wall(cmd, env))
    floor = statistics.median(times["floor"]) * 1e3
    for name in cmds:
        mine = statistics.median(times[name]) * 1e3
        diff = mine - floor
        row("startup", f"interp {name} (median of {runs})", mine, floor, "ms",
            f"<= typer + {STARTUP_SLACK_MS:g} ms", diff <= STARTUP_SLACK_MS,
            f"{diff:+.0f} ms vs `python -c 'import typer'`")


def time_to_prompt(env: dict[str, str], cwd: str) -> float:
    """Spawn interactive interp in a pty; seconds until its `> ` prompt is drawn."""
    import pexpect

    cmd = interp_cmd() + ["--model", "openai/fake", "--api-base", "http://127.0.0.1:9/v1"]
    env = dict(env, TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1")
    t = time.perf_counter()
    child = pexpect.spawn(cmd[0], cmd[1:], env=env, cwd=cwd, encoding="utf-8", timeout=60,
                          dimensions=(40, 120))
    try:
        child.expect(r">\x08\x1b\[2C|> ")  # prompt_toolkit draws "> " as ">", BS, cursor-forward
        took = time.perf_counter() - t
        child.sendeof()
        child.expect(pexpect.EOF, timeout=60)
    finally:
        child.close(force=True)
    return took


def bench_prompt(runs: int, env: dict[str, str], cwd: str) -> None:
    litellm_cmd = [sys.executable, "-c", "import litellm"]
    wall(litellm_cmd, env)
    time_to_prompt(env, cwd)
    mine, base = [], []
    for _ in range(runs):
        base.append(wall(litellm_cmd, env))
        mine.append(time_to_prompt(env, cwd))
    a, b = statistics.median(mine) * 1e3, statistics.median(base) * 1e3
    row("startup", f"interactive: spawn to `> ` prompt (median of {runs})", a, b, "ms",
        "< import litellm", a < b, "baseline: `python -c 'import litellm'`; litellm loads "
        "in a background thread while the prompt waits")


# -- 2. per-turn overhead of the loop ---------------------------------------------
class TimedCompletion:
    """Wraps litellm.completion (the real one) and adds up the time spent inside it and inside
    iterating its stream: the model round trip as interp sees it."""

    def __init__(self, real) -> None:
        self.real, self.seconds = real, 0.0

    def __call__(self, *args, **kwargs):
        t = time.perf_counter()
        try:
            response = self.real(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - t
        return _TimedStream(response, self) if kwargs.get("stream") else response


class _TimedStream:
    def __init__(self, response, clock: TimedCompletion) -> None:
        self._response, self._clock, self._it = response, clock, iter(response)

    def __iter__(self):
        return self

    def __next__(self):
        t = time.perf_counter()
        try:
            return next(self._it)
        finally:
            self._clock.seconds += time.perf_counter() - t

    def __getattr__(self, name):  # close(), completion_stream, ...
        return getattr(self._response, name)


def bench_turns(turns: int, rounds: int, model_name: str, label: str) -> None:
    from fake_openai import FakeOpenAI

    from interp import Session, auto_approve, model_for
    from interp.core.session import SessionConfig
    from interp.models.litellm.loader import load_litellm
    from languages import RunnerConfig

    litellm = load_litellm()
    with FakeOpenAI() as server, tempfile.TemporaryDirectory() as cwd:
        # Through litellm (INTERP_TRANSPORT=litellm), whose completion calls are timed and
        # subtracted: this measures the loop; bench_model_client.py measures the model client.
        os.environ["INTERP_TRANSPORT"] = "litellm"
        try:
            model = model_for(model_name, api_base=server.api_base, api_key="sk-bench-123456")
        finally:
            del os.environ["INTERP_TRANSPORT"]
        config = SessionConfig(max_turns=turns + 1, timeout=60, runner=RunnerConfig(cwd=cwd))
        session = Session(model, auto_approve, config=config)
        results = []
        try:
            for _ in range(rounds):
                results.append(_one_round(litellm, session, server, model, turns))
        finally:
            session.close()
    calls = turns + 1
    total, inside, runner, raw = (statistics.median(r[i] for r in results) / calls * 1e3
                                  for i in range(4))
    overheads = sorted((r[0] - r[1] - r[2]) / calls * 1e3 for r in results)
    per_turn = statistics.median(overheads)
    row("loop", f"{label}: overhead per turn", per_turn, None, "ms", f"< {TURN_TARGET_MS:g} ms",
        per_turn < TURN_TARGET_MS, f"median of {rounds} rounds x {turns + 1} model calls (range "
        f"{overheads[0]:.2f}..{overheads[-1]:.2f}): session {total:.1f} ms - in litellm.completion "
        f"{inside:.1f} - runner {runner:.1f}")
    row("loop", f"{label}: session wall time per turn", total, raw + runner, "ms", "-", None,
        "baseline: the same requests replayed through raw litellm.completion, plus runner time")


def _one_round(litellm, session, server, model, turns: int) -> tuple[float, ...]:
    """Seconds for one task of `turns` blocks: (session, inside litellm, runner, raw replay)."""
    session.reset()
    server.script([BLOCK, "Ready."])  # warm-up task: runner start, connection
    _consume(session.run("warm up"))
    before = len(server.requests)
    server.script(blocks(turns) + ["Done."])
    clock = TimedCompletion(litellm.completion)
    litellm.completion = clock
    try:
        t = time.perf_counter()
        events = _consume(session.run("set x, many times"))
        total = time.perf_counter() - t
    finally:
        litellm.completion = clock.real
    requests = server.requests[before:]
    finished = [e for e in events if e.type == "block.finished"]
    if len(requests) != turns + 1 or len(finished) != turns:
        raise RuntimeError(f"expected {turns + 1} requests and {turns} blocks, "
                           f"got {len(requests)} and {len(finished)}")
    if any(e.status != "ok" for e in finished):
        raise RuntimeError("a block failed")
    runner = sum(e.duration for e in finished)
    # Cross-check: the very same requests through raw litellm.completion, same arguments.
    server.script(blocks(turns) + ["Done."])
    t = time.perf_counter()
    for body in requests:
        response = litellm.completion(
            model=model.name, messages=body["messages"], tools=body.get("tools"), stream=True,
            api_base=model.api_base, api_key="sk-bench-123456",
            stream_options={"include_usage": True}, timeout=model.request_timeout,
            num_retries=0, max_retries=0, drop_params=True)
        for _ in response:
            pass
    raw = time.perf_counter() - t
    return total, clock.seconds, runner, raw


def _consume(events) -> list:
    return list(events)


# -- main -----------------------------------------------------------------------
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs and turns")
    parser.add_argument("--json", metavar="PATH", help="write all figures to PATH")
    args = parser.parse_args()
    runs, prompt_runs, turns, rounds = (5, 3, 20, 3) if args.quick else (10, 5, 40, 5)
    print(f"python: {sys.executable}; interp: {' '.join(interp_cmd())}; quick={args.quick}")
    with tempfile.TemporaryDirectory() as tmp:
        env = private_env(Path(tmp))
        guarded("startup", "interp --version / --help", lambda: bench_startup(runs, env))
        try:
            import pexpect  # noqa: F401
        except ImportError:
            skip("startup", "interactive: spawn to prompt", "pexpect not installed")
        else:
            guarded("startup", "interactive: spawn to prompt",
                    lambda: bench_prompt(prompt_runs, env, tmp))
    for name, label in [("openai/fake-model", "unknown model (no price, no window)"),
                        ("openai/gpt-4o-mini", "known model (gpt-4o-mini: price, window)")]:
        guarded("loop", label, lambda: bench_turns(turns, rounds, name, label))
    return report(args.json)


if __name__ == "__main__":
    sys.exit(main())
