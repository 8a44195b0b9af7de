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
nothing, next to the floor. Over stdio, interp reads and writes its standard streams on the
event loop (interp/mcp/stdio.py) where the SDK's default uses worker threads, so the floor is
also served on those streams (`_mcp_floor.py --interp-streams`) and interp's own part is given
over both floors.

CPU per call, which the machine's load hardly changes (wall times on a busy 2-core machine
are mostly waits for a CPU): the server process's CPU time per run_code call (from
/proc/PID/stat, ticks of 10 ms summed over all calls), the bench process's CPU time per raw
runner call (the runner's own driving of its interpreter, which the server pays too), the
floor server's per no-op call, and interp's own CPU: server minus runner minus floor.

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


def children() -> dict[int, str]:
    """This process's child processes: pid -> command line."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == os.getpid():
                found[int(stat.parent.name)] = (stat.parent / "cmdline").read_text()
        except (OSError, ValueError, IndexError):
            continue
    return found


def cpu_seconds(pid: int | None) -> float:
    """CPU time (user + system) of a process so far; None: this thread's."""
    if pid is None:
        return time.thread_time()
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def raw_caller(runner: PythonRunner):
    async def call() -> float:
        return raw_call(runner)
    return call


def tool_caller(client: Client, name: str, arguments: dict):
    async def call() -> float:
        return await timed(client, name, arguments)
    return call


async def measure(calls: dict[str, tuple], runs: int) -> tuple[dict[str, list[float]],
                                                                dict[str, float]]:
    """Interleaved rounds of each call (name -> (async call, pid whose CPU it costs, None for
    this thread)): wall seconds per call, and CPU seconds per call."""
    for _ in range(20):  # warm: the server's runner starts on its first block
        for call, _ in calls.values():
            await call()
    times: dict[str, list[float]] = {name: [] for name in calls}
    cpu = dict.fromkeys(calls, 0.0)
    while len(times["raw"]) < runs:
        for name, (call, pid) in calls.items():
            before = cpu_seconds(pid)
            for _ in range(ROUND):
                times[name].append(await call())
            cpu[name] += cpu_seconds(pid) - before
    return times, {name: spent / len(times[name]) for name, spent in cpu.items()}


def record(transport: str, times: dict[str, list[float]], cpu: dict[str, float]) -> None:
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
    if "floor_streams" in ms:
        row(transport, "floor on interp's streams: median", ms["floor_streams"], ms["floor"],
            "ms", "-", None, "the same no-op server, stdio read and written on the loop")
        row(transport, "interp's own part over that floor", overhead - ms["floor_streams"], None,
            "ms", "-", None, "run_code - runner - floor on interp's streams")
    row(transport, "interrupt median (nothing to do)", ms["interrupt"], ms["floor"], "ms", "-",
        None, "interp's fixed cost per call over the floor")
    floor = "floor_streams" if "floor_streams" in cpu else "floor"
    cpu_ms = {name: spent * 1000 for name, spent in cpu.items()}
    row(transport, "CPU: server per run_code", cpu_ms["run_code"], cpu_ms["raw"], "ms", "-",
        None, "baseline: the bench's own CPU per raw runner call")
    row(transport, "CPU: floor server per no-op", cpu_ms["floor"], None, "ms", "-", None,
        "the SDK's own streams" if floor == "floor_streams" else "")
    if floor == "floor_streams":
        row(transport, "CPU: floor on interp's streams", cpu_ms[floor], cpu_ms["floor"], "ms",
            "-", None)
    row(transport, "CPU: interp's own per call", cpu_ms["run_code"] - cpu_ms["raw"]
        - cpu_ms[floor], None, "ms", "-", None, "server - runner - floor")


def stdio_calls(client: Client, floor: Client, streams: Client | None, runner: PythonRunner,
                pids: dict[str, int]) -> dict[str, tuple]:
    """The calls measured over stdio, each with the process whose CPU it costs."""
    calls = {"raw": (raw_caller(runner), None),
             "run_code": (tool_caller(client, "run_code", BLOCK), pids["interp"]),
             "floor": (tool_caller(floor, "noop", {}), pids["floor"])}
    if streams is not None:
        calls["floor_streams"] = (tool_caller(streams, "noop", {}), pids["floor_streams"])
    calls["interrupt"] = (tool_caller(client, "interrupt", {}), pids["interp"])
    return calls


def stdio(env: dict, cwd: str, runner: PythonRunner, runs: int) -> None:
    async def main():
        cmd = interp_cmd()
        server = StdioServerParameters(command=cmd[0], args=[*cmd[1:], "mcp", "-y"], env=env,
                                       cwd=cwd)
        floor_script = str(HERE / "_mcp_floor.py")
        floor = StdioServerParameters(command=sys.executable, args=[floor_script], env=env,
                                      cwd=cwd)
        streams = StdioServerParameters(command=sys.executable,
                                        args=[floor_script, "--interp-streams"], env=env, cwd=cwd)
        async with Client(server) as client, Client(floor, mode=ERA) as floor_client, \
                Client(streams, mode=ERA) as streams_client:
            pids = {}
            for pid, cmdline in children().items():
                if "--interp-streams" in cmdline:
                    pids["floor_streams"] = pid
                elif "_mcp_floor.py" in cmdline:
                    pids["floor"] = pid
                elif "mcp" in cmdline.split("\0"):
                    pids["interp"] = pid
            calls = stdio_calls(client, floor_client, streams_client, runner, pids)
            record("stdio", *await measure(calls, runs))

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
                                calls = {"raw": (raw_caller(runner), None),
                                         "run_code": (tool_caller(client, "run_code", BLOCK),
                                                      process.pid),
                                         "floor": (tool_caller(floor_client, "noop", {}),
                                                   floor.pid),
                                         "interrupt": (tool_caller(client, "interrupt", {}),
                                                       process.pid)}
                                record("http", *await measure(calls, runs))
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
