"""Benchmarks one-shot start-up: `interp -y -e TASK` from launch to the first model request.

    python bench/bench_startup.py [--runs N] [--paths openai,anthropic,gemini,ollama,groq] [--json PATH]

For each provider protocol, the first request's arrival is stamped by a scripted server of
that protocol (tests/*_server.py; the wall clock, read in the server's request handler), so the
figure is launch -> request on the wire, not launch -> exit. Floor, measured in the same run and interleaved: `python -c "import
httpx"`, the least a Python client that speaks HTTP can cost. Target: < 1 s absolute and the
ratio printed next to it. Also `INTERP_TRANSPORT=litellm` (every model through litellm), to
show what interp's own protocol clients save.

Speed targets live here, never as timed test assertions. See bench/README.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT), str(ROOT / "tests")]

from bench_cli import interp_cmd, private_env  # noqa: E402
from bench_runners import guarded, report, row  # noqa: E402

TARGET_S = 1.0


class Arrivals:
    """A scripted reply that stamps when each request arrived (wall clock)."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.event = threading.Event()

    def __call__(self, body: dict):
        self.times.append(time.time())
        self.event.set()
        return "Done."


def first_request(server, arrivals: Arrivals, model: str, env: dict, cwd: str) -> float:
    """Seconds from spawning `interp -y -e` to its first request reaching the server."""
    arrivals.event.clear()
    server.add(arrivals)
    cmd = interp_cmd() + ["--model", model, "--api-base", server.api_base, "--api-key",
                          "sk-bench-123456", "-y", "-e", "say done"]
    start = time.time()
    done = subprocess.run(cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)
    if done.returncode or not arrivals.event.is_set():
        raise RuntimeError(f"interp exited {done.returncode}: {done.stderr[-300:]!r}")
    return arrivals.times[-1] - start


def wall(cmd: list[str], env: dict) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=True,
                   timeout=120)
    return time.perf_counter() - start


SERVERS = {"openai": ("fake_openai", "FakeOpenAI", "openai/bench"),
           "anthropic": ("anthropic_server", "AnthropicServer", "anthropic/claude-sonnet-4-5"),
           "gemini": ("gemini_server", "GeminiServer", "gemini/gemini-2.5-flash"),
           "ollama": ("ollama_server", "OllamaServer", "ollama/llama3.1"),
           # a hosted OpenAI-compatible provider (interp.models.wire.hosts), on the OpenAI server
           "groq": ("fake_openai", "FakeOpenAI", "groq/llama-3.3-70b-versatile")}


def bench(runs: int, path: str) -> None:
    module, cls, model = SERVERS[path]
    server_class = getattr(__import__(module), cls)
    with tempfile.TemporaryDirectory() as tmp, server_class() as server:
        env = private_env(Path(tmp))
        forced = dict(env, INTERP_TRANSPORT="litellm")
        arrivals = Arrivals()
        floor_cmd = [sys.executable, "-c", "import httpx"]
        wall(floor_cmd, env)
        first_request(server, arrivals, model, env, tmp)  # warm the page cache and .pyc files
        times: dict[str, list[float]] = {"floor": [], "direct": [], "litellm": []}
        for _ in range(runs):  # interleaved, so drift hits every figure alike
            times["floor"].append(wall(floor_cmd, env))
            times["direct"].append(first_request(server, arrivals, model, env, tmp))
            times["litellm"].append(first_request(server, arrivals, model, forced, tmp))
    floor = statistics.median(times["floor"])
    for name, label in (("direct", "default"), ("litellm", "INTERP_TRANSPORT=litellm")):
        mine = statistics.median(times[name])
        spread = f"{min(times[name]):.2f}..{max(times[name]):.2f} s"
        row("startup", f"{path}: -y -e launch -> first request, {label} (median of {runs})",
            mine * 1e3, floor * 1e3, "ms", f"< {TARGET_S * 1e3:g} ms",
            mine < TARGET_S if name == "direct" else None,
            f"{model}; range {spread}; baseline: `python -c 'import httpx'`")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--paths", default=",".join(SERVERS),
                        help="provider protocols, comma-separated: " + ", ".join(SERVERS))
    parser.add_argument("--json")
    args = parser.parse_args()
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    for path in [p.strip() for p in args.paths.split(",") if p.strip()]:
        if path not in SERVERS:
            parser.error(f"unknown path {path!r}: choose from {', '.join(SERVERS)}")
        guarded("startup", f"{path}: -y -e launch -> first request",
                lambda path=path: bench(args.runs, path))
    return report(args.json)


if __name__ == "__main__":
    sys.exit(main())
