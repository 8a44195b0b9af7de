"""Benchmarks what interp adds to the integrations of config.toml: an MCP server's tool call,
and a hook, each over what the other side costs on its own.

    python bench/bench_integrations.py [--runs N] [--quick] [--only mcp,hooks] [--json PATH]

**MCP tool call.** A real MCP server written with the SDK (`bench/_mcp_tool_server.py`, a tool
that says its text back), called through interp's `mcp` runner (`interp/mcp/client`: the
block's text parsed, the call handed to the servers' event loop in its thread and waited for,
the result turned into bounded output) from `run()` to its Result. Baseline, measured in the
same run and interleaved in rounds of 10: the server's own time as the SDK sees it, the SDK's
`Client.call_tool` to a second instance of the same server, timed inside its event loop.
Target: the median overhead (interp's median minus the SDK's) within 2 ms. CPU per call (this
process: interp's side of the call against the SDK client's own), which load hardly moves.

**Hook.** A PreToolUse hook (`cat > /dev/null`: it reads its JSON and decides nothing, and a
Python one that parses it) run by interp's hooks (`SessionHooks.before`: the matcher, the JSON
input, the process in its own group with a time bound, its output read) for one block.
Baseline, interleaved in rounds of 10: the hook program's own run, the same command with the
same input through `subprocess.run(["bash", "-c", COMMAND])`. Target: within 1.2x of it. An
informational row: what `before()` costs a block no hook matches.

A session without `[mcp_servers]` or `[hooks]` imports none of this and pays nothing: see
bench_cli.py and bench_startup.py for those floors.
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
sys.path[:0] = [str(HERE), str(ROOT)]

from bench_runners import guarded, report, row  # noqa: E402

ROUND = 10
MCP_TARGET_MS = 2.0
HOOK_TARGET = 1.2


def ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, int(0.95 * len(values)) - 1)] * 1000


# -- MCP tool call ------------------------------------------------------------------------------

def bench_mcp(runs: int, folder: str) -> None:
    import anyio
    from anyio.from_thread import start_blocking_portal
    from mcp import Client, StdioServerParameters

    from languages import RunnerConfig

    from interp.mcp.client.config import parse_servers
    from interp.mcp.client.pool import ServerPool
    from interp.mcp.client.runner import runner_class

    server = str(HERE / "_mcp_tool_server.py")
    pool = ServerPool(parse_servers({"bench": {"command": sys.executable, "args": [server],
                                               "startup_timeout_sec": 120}}), None, folder)
    pool.start()
    try:
        pool.wait()
        if pool.connection("bench").state != "ready":
            raise RuntimeError(f"the server did not start: {pool.connection('bench').problem}")
        runner = runner_class(pool)(RunnerConfig(timeout=60, cwd=folder))
        async def hold(*, task_status):  # the SDK client, kept open by one task of its loop
            async with Client(StdioServerParameters(command=sys.executable,
                                                    args=[server])) as client:
                done = anyio.Event()
                task_status.started((client, done))
                await done.wait()

        with start_blocking_portal() as portal:
            held, (client, done) = portal.start_task(hold)
            try:
                measure_mcp(runner, portal, client, runs)
            finally:
                portal.call(done.set)
                held.result(60)
    finally:
        pool.close()


def measure_mcp(runner, portal, client, runs: int) -> None:
    from languages import Result

    code = 'bench.echo {"text": "x"}'

    def through_interp() -> float:
        start = time.perf_counter()
        result = [item for item in runner.run(code) if isinstance(item, Result)][-1]
        took = time.perf_counter() - start
        if result.status != "ok":
            raise RuntimeError(f"the call failed: {result.summary()}")
        return took

    async def raw() -> float:  # timed on the loop: the SDK's own round trip
        start = time.perf_counter()
        result = await client.call_tool("echo", {"text": "x"})
        took = time.perf_counter() - start
        if result.is_error:
            raise RuntimeError("the raw call failed")
        return took

    for _ in range(20):  # warm: imports (the SDK's output-schema check), connections
        through_interp()
        portal.call(raw)
    mine, base, cpu_mine, cpu_base = [], [], 0.0, 0.0
    while len(mine) < runs:
        before = time.process_time()
        for _ in range(ROUND):
            mine.append(through_interp())
        cpu_mine += time.process_time() - before
        before = time.process_time()
        for _ in range(ROUND):
            base.append(portal.call(raw))
        cpu_base += time.process_time() - before
    overhead = ms(mine) - ms(base)
    row("mcp", "tool call median", ms(mine), ms(base), "ms", f"overhead <= {MCP_TARGET_MS:g} ms",
        overhead <= MCP_TARGET_MS, f"overhead {overhead:.2f} ms; baseline: the SDK's call_tool")
    row("mcp", "tool call p95", p95(mine), p95(base), "ms", "-", None)
    row("mcp", "CPU of this process per call", cpu_mine / len(mine) * 1000,
        cpu_base / len(base) * 1000, "ms", "-", None,
        "interp's side (its loop thread included) against the SDK client's")


# -- hooks --------------------------------------------------------------------------------------

HOOKS = {"cat": "cat > /dev/null",
         "python": f"{sys.executable} -I -c 'import json, sys; json.load(sys.stdin)'"}


def bench_hooks(runs: int, folder: str) -> None:
    from languages import default_registry

    from interp.approval.decision import Proposal
    from interp.approval.policy import registry_resolver
    from interp.hooks import payloads
    from interp.hooks.config import parse_hooks
    from interp.hooks.payloads import Where
    from interp.hooks.session import SessionHooks

    resolve = registry_resolver(default_registry(plugins=False))
    where = Where("bench", None, folder, "ask")
    proposal = Proposal(1, "python", "x = 1")
    for name, command in HOOKS.items():
        hooks = SessionHooks(parse_hooks({"PreToolUse": [{"matcher": "python",
                                                          "command": command}]}, resolve),
                             resolve, folder, frozenset(), where=lambda: where)
        stdin = payloads.pre_tool_use(where, "PreToolUse", 1, "python", "x = 1").encode()
        env = dict(hooks.env)

        def through_interp() -> float:
            start = time.perf_counter()
            before = hooks.before(proposal)
            took = time.perf_counter() - start
            if before.action is not None or before.lines:
                raise RuntimeError(f"the hook said something: {before}")
            return took

        def alone() -> float:
            start = time.perf_counter()
            ran = subprocess.run(["bash", "-c", command], input=stdin, capture_output=True,
                                 cwd=folder, env=env)
            took = time.perf_counter() - start
            if ran.returncode != 0:
                raise RuntimeError(f"the hook program failed: {ran.stderr[-200:]!r}")
            return took

        for _ in range(5):
            through_interp()
            alone()
        mine, base = [], []
        while len(mine) < runs:
            mine += [through_interp() for _ in range(ROUND)]
            base += [alone() for _ in range(ROUND)]
        ratio = ms(mine) / ms(base)
        row("hooks", f"PreToolUse hook `{name}` median", ms(mine), ms(base), "ms",
            f"<= {HOOK_TARGET:g}x", ratio <= HOOK_TARGET,
            f"+{ms(mine) - ms(base):.2f} ms; baseline: the program run by subprocess.run")
        row("hooks", f"PreToolUse hook `{name}` p95", p95(mine), p95(base), "ms", "-", None)
    unmatched = SessionHooks(parse_hooks({"PreToolUse": [{"matcher": "shell: git push *",
                                                          "command": "true"}]}, resolve),
                             resolve, folder, frozenset(), where=lambda: where)
    start = time.perf_counter()
    for _ in range(1000):
        unmatched.before(proposal)
    row("hooks", "a block no hook matches", (time.perf_counter() - start), None, "ms", "-",
        None, "the matcher alone, per block")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300, help="calls per figure (default 300)")
    parser.add_argument("--quick", action="store_true", help="100 calls per figure")
    parser.add_argument("--only", default="mcp,hooks", help="mcp, hooks or both")
    parser.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    args = parser.parse_args()
    runs = 100 if args.quick else args.runs
    only = {part.strip() for part in args.only.split(",")}
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"{runs} calls per figure")
    with tempfile.TemporaryDirectory(prefix="bench-integrations-") as folder:
        if "mcp" in only:
            guarded("mcp", "tool call median", lambda: bench_mcp(runs, folder))
        if "hooks" in only:
            guarded("hooks", "PreToolUse hook median", lambda: bench_hooks(runs, folder))
    return report(args.json)


if __name__ == "__main__":
    sys.exit(main())
