"""Benchmarks `--local` against llama.cpp's own figures for the same model in the same run.

    python bench/bench_local.py [--model smollm2|0.5b|1.5b|PATH.gguf] [--threads N]
                                [--runs N] [--quick] [--json PATH]

The model is a real GGUF (tests/real_models.py fetches and verifies it; --quick: the 135M one).
Each figure is what interp sees next to what llama.cpp measured for the very same work:

1. load: `LocalServer.wait()` wall time (process start, Python and xllamacpp imports, load,
   announce) next to llama.cpp's own load (the `Server()` call, timed inside the child).
2. time to first token: `LocalModel.stream()` (litellm, streaming) from the call to the first
   text, next to llama.cpp's prompt time plus one generated token, from its /metrics counters
   for that request.
3. prompt tokens/s: prompt tokens over interp's time to first token, next to llama.cpp's.
4. generation tokens/s: tokens after the first over the time interp saw them arrive in, next
   to llama.cpp's generation rate for the request.
5. /tokens: what `LocalModel.speed()` reports, next to the sum of the per-request figures.

Every request has a fresh prompt (a nonce first), so llama.cpp's prompt cache never helps.
Speed targets live here, never as timed test assertions. See bench/README.md.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT), str(ROOT / "tests")]

from bench_runners import guarded, report, row, skip  # noqa: E402

LOAD_SLACK_S = 1.5  # interp's process and imports may add this much to llama.cpp's load
TTFT_RATIO = 1.25  # the first token may take this much longer through litellm
RATE_RATIO = 0.9  # interp must see at least this share of llama.cpp's tokens/s
PROMPT = ("Write a Python module with three small functions (parse a CSV line, compute a "
          "median, format a table) and a docstring for each.")


def model_path(choice: str) -> Path:
    """The GGUF to measure: a path, or one of the test models (fetched and verified)."""
    from real_models import QWEN_CODER_05B, QWEN_CODER_15B, SMOLLM2_135M, fetch

    named = {"smollm2": SMOLLM2_135M, "0.5b": QWEN_CODER_05B, "1.5b": QWEN_CODER_15B}
    return fetch(named[choice]) if choice in named else Path(choice)


def metrics(model) -> dict[str, float]:
    import urllib.request

    from interp.models.local.model import _prometheus

    with urllib.request.urlopen(model.server.info.address + "/metrics", timeout=30) as response:
        return _prometheus(response.read().decode())


def one_request(model) -> dict:
    """One streamed reply through interp; what interp saw and what llama.cpp measured."""
    from interp.models.base import Reply

    messages = [{"role": "system", "content": f"Session {uuid.uuid4().hex}. You write code."},
                {"role": "user", "content": PROMPT}]
    before = metrics(model)
    start, arrivals, reply = time.perf_counter(), [], None
    for item in model.stream(messages):
        if isinstance(item, Reply):
            reply = item
        elif item:
            arrivals.append(time.perf_counter())
    after = metrics(model)
    delta = {k: after.get(k, 0.0) - before.get(k, 0.0) for k in after}
    gen_n = delta["llamacpp:tokens_predicted_total"]
    gen_s = delta["llamacpp:tokens_predicted_seconds_total"]
    return dict(
        ttft=arrivals[0] - start, span=arrivals[-1] - arrivals[0],
        prompt_n=reply.usage.prompt_tokens, gen_n=reply.usage.completion_tokens,
        cpp_prompt_s=delta["llamacpp:prompt_seconds_total"],
        cpp_prompt_n=delta["llamacpp:prompt_tokens_total"],
        cpp_gen_s=gen_s, cpp_gen_n=gen_n, cpp_token_s=gen_s / gen_n if gen_n else 0.0)


def bench(path: Path, threads: int, runs: int, context: int) -> None:
    from interp.models.local.server import LocalConfig, LocalServer
    from interp.models.local.model import LocalModel

    config = LocalConfig(path, threads=threads, context=context, temperature=0.0, predict=128)
    server = LocalServer(config)
    model = LocalModel(server)
    try:
        start = time.perf_counter()
        info = server.wait()
        wall = time.perf_counter() - start
        row("load", f"{path.name}: start to ready", wall, info.load_seconds, "s",
            f"< llama.cpp + {LOAD_SLACK_S:g} s", wall <= info.load_seconds + LOAD_SLACK_S)
        one_request(model)  # warm-up: litellm's import and first connection
        results = [one_request(model) for _ in range(runs)]
        _rows(results, runs)
        _tokens_row(model, results)
    finally:
        model.close()


def _rows(results: list[dict], runs: int) -> None:
    med = lambda key: statistics.median(r[key] for r in results)  # noqa: E731
    cpp_ttft = statistics.median(r["cpp_prompt_s"] + r["cpp_token_s"] for r in results)
    row("first token", f"time to first token (median of {runs})", med("ttft") * 1e3,
        cpp_ttft * 1e3, "ms", f"<= {TTFT_RATIO:g}x", med("ttft") <= cpp_ttft * TTFT_RATIO)
    mine = statistics.median(r["prompt_n"] / r["ttft"] for r in results)
    base = statistics.median(r["cpp_prompt_n"] / r["cpp_prompt_s"] for r in results)
    row("speed", "prompt tokens/s", mine, base, "tok/s", f">= {RATE_RATIO:g}x",
        mine >= base * RATE_RATIO, note=f"{med('prompt_n'):.0f} prompt tokens")
    gen = [r for r in results if r["gen_n"] > 1 and r["span"] > 0]
    if not gen:
        skip("speed", "generation tokens/s", "replies of one token")
        return
    mine = statistics.median((r["gen_n"] - 1) / r["span"] for r in gen)
    base = statistics.median(r["cpp_gen_n"] / r["cpp_gen_s"] for r in gen)
    row("speed", "generation tokens/s", mine, base, "tok/s", f">= {RATE_RATIO:g}x",
        mine >= base * RATE_RATIO, note=f"{statistics.median(r['gen_n'] for r in gen):.0f} "
        f"tokens a reply")


def _tokens_row(model, results: list[dict]) -> None:
    speed = model.speed()
    total_n = sum(r["cpp_gen_n"] for r in results)
    total_s = sum(r["cpp_gen_s"] for r in results)
    row("speed", "/tokens generation rate (whole run, warm-up included)",
        speed.generation_rate, total_n / total_s, "tok/s", "-", None)


def main() -> int:
    from interp.models.local.server import default_threads, physical_cores, xllamacpp_installed

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="0.5b", help="smollm2, 0.5b, 1.5b or a .gguf path")
    parser.add_argument("--threads", type=int, default=None,
                        help="llama.cpp threads (default: interp's own choice)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--context", type=int, default=4096)
    parser.add_argument("--quick", action="store_true", help="the 135M model, 3 runs")
    parser.add_argument("--json", metavar="PATH", help="write all figures to PATH")
    args = parser.parse_args()
    choice, runs = ("smollm2", 3) if args.quick else (args.model, args.runs)
    threads = args.threads or default_threads()
    import os

    print(f"model: {choice}; threads {threads} (physical cores {physical_cores()}, load "
          f"{os.getloadavg()[0]:.1f}); context {args.context}; {runs} runs")
    if not xllamacpp_installed():
        skip("load", "local model", "xllamacpp is not installed: pip install -e '.[local]'")
        return report(args.json)
    guarded("load", "local model", lambda: bench(model_path(choice), threads, runs, args.context))
    return report(args.json)


if __name__ == "__main__":
    sys.exit(main())
