"""Benchmarks `interp mcp`: the cost of one run_code call over the runner's own, per transport.

    python bench/bench_mcp.py [--runs N] [--quick] [--json PATH]

Baseline, measured in the same run and interleaved in rounds of 10: the same trivial block
(`x = 1`) run by a PythonRunner in this process (`run()` to its `Result`). Measured: the same
block through a real `interp mcp -y` driven by the `mcp` SDK's own client, over stdio and over
Streamable HTTP (with the bearer token), from `call_tool` to its result. Target: the median
overhead (MCP median minus runner median) within 2 ms; the ratio is printed next to it.

Informational rows per transport: the SDK's floor, a no-op tool of the SDK's low-level Server
served the same way (`bench/_mcp_floor.py`) and called by the same client in the same protocol
era (the initialize handshake), interleaved too, so
the overhead splits into the SDK's round trip and interp's own part (interp's median minus the
runner's minus the floor's); and `interrupt` with nothing running, interp's call that does
nothing, next to the floor.

Speed targets live here, never as timed test assertions. See bench/README.md.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT), str(ROOT / "tests")]

import anyio  # noqa: E402
import httpx2  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from bench_cli import interp_cmd, private_env  # noqa: E402
from bench_runners import guarded, report, row  # noqa: E402
from languages import Result, RunnerConfig  # noqa: E402
from languages.python import PythonRunner  # noqa: E402

TARGET_MS = 2.0
BLOCK = {"language": "python", "code": "x = 1"}
ROUND = 10
# The floor is called in the era `interp mcp` speaks (the initialize handshake, with sessions): a
# floor server left to answer `server/discover` is served sessionless (2026-07-28), which over
# HTTP is a different, cheaper exchange.
ERA = "legacy"


def raw_call(runner: PythonRunner) -> float:
    """Seconds for one trivial block through the runner itself."""
    start = time.perf_counter()
    result = None
    for event in runner.run("x = 1"):
        if isinstance(event, Result):
            result = event
    took = time.perf_counter() - start
    if result is None or not result.ok:
        raise RuntimeError(f"the runner failed: {result}")
    return took


async def timed(client: Client, name: str, arguments: dict) -> float:
    start = time.perf_counter()
    result = await client.call_tool(name, arguments)
    took = time.perf_counter() - start
    if result.is_error:
        raise RuntimeError(f"{name} failed: {result.content[0].text}")
    return took


async def measure(client: Client, floor: Client, runner: PythonRunner,
                  runs: int) -> dict[str, list[float]]:
    """Interleaved rounds of raw runner calls, run_code calls, floor calls and interrupt
    calls."""
    for _ in range(20):  # warm: the server's runner starts on its first block
        await timed(client, "run_code", BLOCK)
        await timed(floor, "noop", {})
        raw_call(runner)
    times: dict[str, list[float]] = {"raw": [], "run_code": [], "floor": [],
                                     "interrupt": []}
    while len(times["raw"]) < runs:
        for _ in range(ROUND):
            times["raw"].append(raw_call(runner))
        for _ in range(ROUND):
            times["run_code"].append(await timed(client, "run_code", BLOCK))
        for _ in range(ROUND):
            times["floor"].append(await timed(floor, "noop", {}))
        for _ in range(ROUND):
            times["interrupt"].append(await timed(client, "interrupt", {}))
    return times


def record(transport: str, times: dict[str, list[float]]) -> None:
    ms = {name: statistics.median(values) * 1000 for name, values in times.items()}
    overhead = ms["run_code"] - ms["raw"]
    row(transport, "run_code median", ms["run_code"], ms["raw"], "ms",
        f"overhead <= {TARGET_MS:g} ms", overhead <= TARGET_MS, f"overhead {overhead:.2f} ms")
    p95 = sorted(times["run_code"])[int(0.95 * len(times["run_code"])) - 1] * 1000
    raw95 = sorted(times["raw"])[int(0.95 * len(times["raw"])) - 1] * 1000
    row(transport, "run_code p95", p95, raw95, "ms", "-", None)
    row(transport, "SDK floor: no-op tool median", ms["floor"], None, "ms", "-", None,
        "the SDK's client and server alone")
    row(transport, "interp's own part (median)", overhead - ms["floor"], None, "ms", "-", None,
        "run_code - runner - floor")
    row(transport, "interrupt median (nothing to do)", ms["interrupt"], ms["floor"], "ms", "-",
        None, "interp's fixed cost per call over the floor")


def stdio(env: dict, cwd: str, runner: PythonRunner, runs: int) -> None:
    async def main():
        cmd = interp_cmd()
        server = StdioServerParameters(command=cmd[0], args=[*cmd[1:], "mcp", "-y"], env=env,
                                       cwd=cwd)
        floor = StdioServerParameters(command=sys.executable, args=[str(HERE / "_mcp_floor.py")],
                                      env=env, cwd=cwd)
        async with Client(server) as client, Client(floor, mode=ERA) as floor_client:
            record("stdio", await measure(client, floor_client, runner, runs))

    anyio.run(main)


def started(process: subprocess.Popen, said: Path, what: str) -> None:
    """Wait (bounded) until a server says it listens."""
    deadline = time.monotonic() + 60
    while what not in said.read_text():
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"a server did not start: {said.read_text()[-300:]}")
        time.sleep(0.05)


def http(env: dict, cwd: str, runner: PythonRunner, runs: int, tmp: Path) -> None:
    said, floor_said = tmp / "http.err", tmp / "floor.err"
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    floor_port = sock.getsockname()[1]
    sock.close()
    with open(said, "w") as err, open(floor_said, "w") as floor_err:
        process = subprocess.Popen([*interp_cmd(), "mcp", "--http", "--port", "0", "-y"],
                                   env=dict(env, INTERP_MCP_TOKEN="bench-token-123456"),
                                   cwd=cwd, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=err)
        floor = subprocess.Popen([sys.executable, str(HERE / "_mcp_floor.py"), "--http",
                                  str(floor_port)], env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=floor_err)
    try:
        started(process, said, " at http://")
        url = said.read_text().split(" at ", 1)[1].split()[0]
        floor_url = f"http://127.0.0.1:{floor_port}/mcp"

        async def main():
            headers = {"Authorization": "Bearer bench-token-123456"}
            async with httpx2.AsyncClient(headers=headers) as client_http:
                async with Client(streamable_http_client(url, http_client=client_http)) as client:
                    for _ in range(600):  # the floor server prints nothing: wait until it answers
                        try:
                            async with Client(floor_url, mode=ERA) as floor_client:
                                record("http", await measure(client, floor_client, runner, runs))
                                return
                        except Exception:
                            await anyio.sleep(0.1)
                    raise RuntimeError("the floor server did not answer")

        anyio.run(main)
    finally:
        for child in (process, floor):
            child.terminate()
            child.wait(timeout=30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300, help="calls per figure (default 300)")
    parser.add_argument("--quick", action="store_true", help="100 calls per figure")
    parser.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    args = parser.parse_args()
    runs = 100 if args.quick else args.runs
    with tempfile.TemporaryDirectory(prefix="bench-mcp-") as folder:
        tmp = Path(folder)
        work = tmp / "work"
        work.mkdir()
        env = private_env(tmp)
        runner = PythonRunner(RunnerConfig(cwd=str(work), timeout=30))
        runner.start()
        print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
              f"{runs} calls per figure")
        try:
            guarded("stdio", "run_code median", lambda: stdio(env, str(work), runner, runs))
            guarded("http", "run_code median", lambda: http(env, str(work), runner, runs, tmp))
        finally:
            runner.stop()
        return report(args.json)


if __name__ == "__main__":
    sys.exit(main())
