"""Benchmarks `interp acp`: what a turn costs through the Agent Client Protocol over the same
turn run with `interp -y -e`, measured in the same run and interleaved.

    python bench/bench_acp.py [--runs N] [--quick] [--json PATH]

The turn, against the fake OpenAI server in this process (instant replies): the model answers
the task with one Python block (`print(6 * 7)`), interp runs it without asking (`-y`), the
model states the answer. Figures, median of N:

1. cold: launching `interp acp -y` driven by the SDK's own client (initialize, session/new,
   session/prompt) to the prompt's response, next to launching `interp -y -e TASK` to its exit
   (the answer printed): what a first turn costs in an editor over the terminal. No target:
   most of the difference is the SDK's own import (its pydantic schema), measured beside it as
   `python -c "import acp"`, which interp pays only when it serves an editor.
2. warm: one more turn in a running `interp acp` session (session/prompt to its response: every
   update sent), next to the same turn through a library `Session` in this process (`run()` to
   task.finished): the protocol's own cost per turn. Target: within 25 ms of the baseline.

Speed targets live here, never as timed test assertions. See bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
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

from acp import spawn_agent_process, text_block  # noqa: E402

from acp_kit import EditorClient  # noqa: E402
from bench_cli import interp_cmd, private_env  # noqa: E402
from bench_runners import guarded, report, row  # noqa: E402
from fake_openai import FakeOpenAI  # noqa: E402

TASK = "compute six times seven"
BLOCK = "Computing it.\n```python\nprint(6 * 7)\n```\n"
ANSWER = "Six times seven is 42."
KEY = "sk-bench-123456"
WARM_SLACK_MS = 25.0


def reply(request: dict) -> str:
    """The block when the task was just given, else the answer: the same turn every time."""
    last = request["messages"][-1]
    return BLOCK if last.get("role") == "user" and last.get("content") == TASK else ANSWER


def model_flags(server: FakeOpenAI) -> list[str]:
    return ["--model", "openai/fake-model", "--api-base", server.api_base, "-y"]


def one_shot(server: FakeOpenAI, env: dict, cwd: str) -> float:
    """Seconds from launching `interp -y -e TASK` to its exit."""
    start = time.perf_counter()
    done = subprocess.run([*interp_cmd(), *model_flags(server), "-e", TASK], env=env, cwd=cwd,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    took = time.perf_counter() - start
    if done.returncode or "42" not in done.stdout:
        raise RuntimeError(f"interp -e exited {done.returncode}: {done.stderr[-300:]!r}")
    return took


async def editor_turns(server: FakeOpenAI, env: dict, cwd: str, turns: int) -> list[float]:
    """Launch `interp acp -y` and run `turns` prompts in one session: the seconds from launch
    to the first prompt's response, then those of each further prompt."""
    client = EditorClient()
    cmd = interp_cmd()
    start = time.perf_counter()
    with open(os.devnull, "w") as quiet:
        async with spawn_agent_process(client, cmd[0], *cmd[1:], "acp", *model_flags(server),
                                       env=env, cwd=cwd,
                                       transport_kwargs={"stderr": quiet}) as (conn, _):
            await conn.initialize(protocol_version=1)
            session = await conn.new_session(cwd=cwd, mcp_servers=[])
            times = []
            for _ in range(turns):
                ended = await conn.prompt(session_id=session.session_id,
                                          prompt=[text_block(TASK)])
                if ended.stop_reason != "end_turn" or "42" not in client.message():
                    raise RuntimeError(f"the turn ended {ended.stop_reason}")
                times.append(time.perf_counter() - start)
                start = time.perf_counter()
    return times


def library_turns(server: FakeOpenAI, cwd: str, turns: int) -> list[float]:
    """The same turn through a library Session in this process, `turns` times in one session."""
    from interp.approval.decision import auto_approve
    from interp.core.session import Session, SessionConfig
    from interp.models.reach import model_for
    from languages import RunnerConfig

    session = Session(model_for("openai/fake-model", api_base=server.api_base, api_key=KEY),
                      auto_approve, config=SessionConfig(runner=RunnerConfig(cwd=cwd)))
    times = []
    try:
        for _ in range(turns):
            start = time.perf_counter()
            codes = [e.exit_code for e in session.run(TASK) if e.type == "task.finished"]
            times.append(time.perf_counter() - start)
            if codes != [0]:
                raise RuntimeError(f"the library turn ended {codes}")
    finally:
        session.close()
    return times


def sdk_import(env: dict) -> float:
    """Seconds of `python -c "import acp"`: the SDK alone."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import acp"], env=env, check=True, timeout=120)
    return time.perf_counter() - start


def cold(server: FakeOpenAI, env: dict, cwd: str, runs: int) -> None:
    editor, terminal, sdk = [], [], []
    for _ in range(runs):  # interleaved: all see the same load
        editor.append(asyncio.run(editor_turns(server, env, cwd, 1))[0])
        terminal.append(one_shot(server, env, cwd))
        sdk.append(sdk_import(env))
    mine, base = statistics.median(editor), statistics.median(terminal)
    row("cold", "launch to the first turn's end", mine, base, "s", "-", None,
        "interp acp -y (SDK client) vs interp -y -e")
    row("cold", "the SDK's own import", statistics.median(sdk), mine - base, "s", "-", None,
        'python -c "import acp"; baseline column: the difference above')


def warm(server: FakeOpenAI, env: dict, cwd: str, runs: int) -> None:
    editor = asyncio.run(editor_turns(server, env, cwd, runs + 1))[1:]  # the first is cold
    library = library_turns(server, cwd, runs + 1)[1:]
    mine, base = statistics.median(editor) * 1000, statistics.median(library) * 1000
    row("warm", "one more turn in the session", mine, base, "ms",
        f"<= baseline + {WARM_SLACK_MS:g} ms", mine - base <= WARM_SLACK_MS,
        "interp acp vs a library Session in-process")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="turns per figure (default 9)")
    parser.add_argument("--quick", action="store_true", help="3 cold and 9 warm turns")
    parser.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-acp-") as folder, \
            FakeOpenAI(default=reply) as server:
        tmp = Path(folder)
        work = tmp / "work"
        work.mkdir()
        env = dict(private_env(tmp), OPENAI_API_KEY=KEY)
        print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        guarded("cold", "launch to the first turn's end",
                lambda: cold(server, env, str(work), 3 if args.quick else args.runs))
        guarded("warm", "one more turn in the session",
                lambda: warm(server, env, str(work), 9 if args.quick else 3 * args.runs))
        return report(args.json)


if __name__ == "__main__":
    sys.exit(main())
