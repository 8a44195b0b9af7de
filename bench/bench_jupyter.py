"""Benchmarks the Jupyter runner against raw kernel round trips measured in the same run.

    python bench/bench_jupyter.py [--quick] [--kind local,gateway] [--json PATH]

Per-block overhead (a trivial block, run() to Result) and interrupt latency, through a local
ipykernel and through a real `jupyter kernelgateway` on 127.0.0.1, each next to the same thing
done with jupyter_client directly (bench/_jupyter_baseline.py). See bench/README.md.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent), str(HERE.parent / "tests")]

import _jupyter_baseline as raw  # noqa: E402
from bench_runners import drain, guarded, p95, report, row, skip  # noqa: E402
from languages.jupyter import JupyterRunner, KernelChoice  # noqa: E402
from languages.protocol import RunnerConfig  # noqa: E402

TOKEN_ENV = "INTERP_BENCH_GATEWAY_TOKEN"
OVERHEAD_TARGET_MS = {"local": 2.0, "gateway": 3.0}  # median above the raw round trip
INTERRUPT_TARGET_MS = 500.0
SLEEPER = "import time\ntime.sleep(100)"


def runner_for(kind: str, url: str | None, folder: str) -> JupyterRunner:
    choice = KernelChoice("python3", url if kind == "gateway" else None, TOKEN_ENV)
    cls = JupyterRunner.for_language("python", (), choice)
    return cls(RunnerConfig(cwd=folder, timeout=60, grace=2.0))


def raw_for(kind: str, gateway) -> raw.LocalRaw | raw.GatewayRaw:
    return raw.GatewayRaw(gateway.url, gateway.token) if kind == "gateway" else raw.LocalRaw()


def timed(fn, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return times


def bench_warm(kind: str, gateway, runs: int, folder: str) -> None:
    runner, base = runner_for(kind, gateway and gateway.url, folder), raw_for(kind, gateway)
    try:
        drain(runner.run(raw.CODE))

        def one():
            result = drain(runner.run(raw.CODE))
            if not result.ok:
                raise RuntimeError(f"trivial block failed: {result.summary()}")

        timed(one, 5), timed(base.round_trip, 5)
        mine, theirs = [], []
        for _ in range(runs):  # interleaved, so load on the machine hits both alike
            mine += timed(one, 1)
            theirs += timed(base.round_trip, 1)
    finally:
        runner.stop()
        base.close()
    med, base_med = statistics.median(mine) * 1e3, statistics.median(theirs) * 1e3
    target = OVERHEAD_TARGET_MS[kind]
    row("warm", f"{kind}: `x = 1` median ({runs} runs)", med, base_med, "ms",
        f"<= raw + {target:g} ms", med <= base_med + target,
        f"overhead {med - base_med:+.2f} ms per block")
    row("warm", f"{kind}: p95", p95(mine) * 1e3, p95(theirs) * 1e3, "ms", "-", None)


def bench_interrupt(kind: str, gateway, tries: int, folder: str, delay: float = 0.3) -> None:
    runner, base = runner_for(kind, gateway and gateway.url, folder), raw_for(kind, gateway)
    mine, theirs, problems = [], [], []
    try:
        drain(runner.run(raw.CODE))
        for _ in range(tries):
            fired = {}

            def fire():
                fired["t"] = time.perf_counter()
                runner.interrupt()

            timer = threading.Timer(delay, fire)
            timer.start()
            result = drain(runner.run(SLEEPER))
            mine.append(time.perf_counter() - fired.get("t", time.perf_counter()))
            timer.join()
            if result.status != "interrupted" or result.restarted:
                problems.append(result.summary())
            msg_id = base.execute(SLEEPER)
            time.sleep(delay)
            t = time.perf_counter()
            base.interrupt()
            base.wait_idle(msg_id)
            theirs.append(time.perf_counter() - t)
    finally:
        runner.stop()
        base.close()
    med, base_med = statistics.median(mine) * 1e3, statistics.median(theirs) * 1e3
    row("interrupt", f"{kind}: interrupt -> Result (median of {tries})", med, base_med, "ms",
        f"< {INTERRUPT_TARGET_MS:g} ms", med < INTERRUPT_TARGET_MS and not problems,
        "; ".join(problems[:2]))


def bench_cold(kind: str, gateway, starts: int, folder: str) -> None:
    mine, theirs = [], []
    for _ in range(starts):
        t = time.perf_counter()
        runner = runner_for(kind, gateway and gateway.url, folder)
        drain(runner.run(raw.CODE))
        mine.append(time.perf_counter() - t)
        runner.stop()
        t = time.perf_counter()
        base = raw_for(kind, gateway)
        base.round_trip()
        theirs.append(time.perf_counter() - t)
        base.close()
    a, b = statistics.median(mine) * 1e3, statistics.median(theirs) * 1e3
    row("cold", f"{kind}: start to first Result ({starts}x)", a, b, "ms", "<= 1.5x raw", a <= 1.5 * b,
        "interp also installs its table formatter in Python kernels")


def start_gateway(folder: str):
    import os

    from gateway_server import KernelGateway, gateway_command

    if gateway_command() is None:
        return None, "jupyter-kernel-gateway not installed"
    server = KernelGateway(Path(folder)).start()
    os.environ[TOKEN_ENV] = server.token
    return server, None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs")
    parser.add_argument("--kind", default="local,gateway")
    parser.add_argument("--json", metavar="PATH", help="write all figures to PATH")
    args = parser.parse_args()
    kinds = [k.strip() for k in args.kind.split(",") if k.strip()]
    runs, tries, starts = (50, 3, 2) if args.quick else (300, 10, 5)
    try:
        import jupyter_client  # noqa: F401
    except ImportError:
        for kind in kinds:
            skip("warm", kind, "jupyter_client not installed (pip install 'interp[jupyter]')")
        return report(args.json)
    print(f"python: {sys.executable}; raw baselines: jupyter_client BlockingKernelClient (local), "
          f"a bare WebSocket (gateway); quick={args.quick}")
    with tempfile.TemporaryDirectory(prefix="bench-jupyter-") as folder:
        gateway, why = start_gateway(folder) if "gateway" in kinds else (None, None)
        try:
            for kind in kinds:
                if kind == "gateway" and gateway is None:
                    skip("warm", kind, why)
                    continue
                guarded("warm", kind, lambda: bench_warm(kind, gateway, runs, folder))
                guarded("interrupt", kind, lambda: bench_interrupt(kind, gateway, tries, folder))
                guarded("cold", kind, lambda: bench_cold(kind, gateway, starts, folder))
        finally:
            if gateway is not None:
                gateway.stop()
    return report(args.json)


if __name__ == "__main__":
    sys.exit(main())
