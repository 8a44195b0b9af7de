"""Benchmarks interp's runners against raw pexpect REPLs measured in the same run.

    python bench/bench_runners.py [--quick] [--lang python,shell,javascript] [--json PATH]

Speed targets live here, never as timed test assertions. See bench/README.md.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import resource
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

import _baseline as raw  # noqa: E402
from languages.process.limits import Limits  # noqa: E402
from languages.protocol import RunnerConfig  # noqa: E402
from languages.records import Result  # noqa: E402

CLASSES = {"python": ("languages.python", "PythonRunner"), "shell": ("languages.shell", "ShellRunner"),
           "javascript": ("languages.node", "NodeRunner")}
WARM_TARGET_MS = {"python": 2.0, "shell": 2.0, "javascript": 3.0}
BLOCKERS = {"python sleep": ("python", "import time; time.sleep(100)"), "shell sleep": ("shell", "sleep 100"),
            "javascript await": ("javascript", "await new Promise(r => setTimeout(r, 1e6))"),
            "javascript busy": ("javascript", "while(true){}")}
BIG_BLOCK = "import sys; b = 'x' * 1023 + '\\n'; _ = [sys.stdout.write(b * 1024) for i in range({})]"
LINES = 200_000
LINES_BLOCK = {"python": f"for i in range({LINES}): print(i)", "shell": f"seq {LINES}",
               "javascript": f"for (let i = 0; i < {LINES}; i++) console.log(i)"}
MB = 1 << 20
ROWS: list[dict] = []


# -- helpers ------------------------------------------------------------------
def runner_class(lang: str):
    """The runner class for lang, or a reason string when it is not importable."""
    module, name = CLASSES[lang]
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        return f"{name} not available: {exc}"


def python_exe() -> str:
    """The python3 the PythonRunner would use, so both sides run the same interpreter."""
    from languages.python import PythonRunner
    return PythonRunner(RunnerConfig()).executable()


def drain(events) -> Result:
    """Consume a run's events without keeping output; return its Result."""
    result = None
    for event in events:
        if isinstance(event, Result):
            result = event
    return result


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, int(round(0.95 * len(values))) - 1)]


def row(section, figure, mine, base, unit, target, passed, note=""):
    ratio = mine / base if isinstance(mine, float) and isinstance(base, float) and base else None
    ROWS.append(dict(section=section, figure=figure, interp=mine, baseline=base, unit=unit, ratio=ratio,
                     target=target, passed=passed, note=note))


def skip(section, figure, reason):
    ROWS.append(dict(section=section, figure=figure, skipped=reason))


def guarded(section, figure, fn):
    """Run one measurement; a failure becomes a 'skipped' or failed row, never a crash."""
    try:
        fn()
    except Exception as exc:  # a benchmark must report, not die
        ROWS.append(dict(section=section, figure=figure, error=f"{exc.__class__.__name__}: {exc}"[:160]))


# -- 1. warm per-block overhead -------------------------------------------------
def report(json_path: str | None) -> int:
    """Print the tables and the summary line; also write them as JSON when asked."""
    print_tables()
    print("\n" + summary())
    if json_path:
        Path(json_path).write_text(json.dumps(dict(rows=ROWS, summary=summary()), indent=2))
    return 0


def bench_warm(lang, cls, py, runs):
    """Trivial blocks through the runner and through replwrap, alternating in rounds, so
    that both sides see the same load."""
    runner, wrap = cls(RunnerConfig(timeout=30)), None
    try:
        wrap = raw.spawn(lang, py)
        raw.warm(wrap, raw.TRIVIAL[lang], 5)
        for _ in range(5):
            drain(runner.run(raw.TRIVIAL[lang]))
        mine, base = [], []
        while len(mine) < runs:  # in rounds of 10: each side stays warm within a round
            for _ in range(min(10, runs - len(mine))):
                t = time.perf_counter()
                result = drain(runner.run(raw.TRIVIAL[lang]))
                mine.append(time.perf_counter() - t)
                if not result.ok:
                    raise RuntimeError(f"trivial block failed: {result.summary()}")
            base += raw.warm(wrap, raw.TRIVIAL[lang], min(10, runs - len(base)))
    finally:
        runner.stop()
        if wrap is not None:
            raw.close(wrap)
    target = WARM_TARGET_MS[lang]
    med = statistics.median(mine) * 1e3
    row("warm", f"{lang} median ({runs} runs)", med, statistics.median(base) * 1e3, "ms",
        f"< {target:g} ms", med < target)
    row("warm", f"{lang} p95", p95(mine) * 1e3, p95(base) * 1e3, "ms", "-", None)


# -- 2. cold start --------------------------------------------------------------
def bench_cold(lang, cls, py, starts):
    """Fresh runners to their first Result, with interp's default limits and without the
    process limit (whose pids cgroup costs a kernel RCU grace period to join)."""
    mine, free, base = [], [], []
    for _ in range(starts):
        mine.append(first_result(cls, lang, RunnerConfig(timeout=30)))
        free.append(first_result(cls, lang, RunnerConfig(timeout=30, limits=Limits(processes=None))))
        base.append(raw.cold(lang, py))
    a, f, b = (statistics.median(x) * 1e3 for x in (mine, free, base))
    row("cold", f"{lang} start to first Result ({starts}x)", a, b, "ms", "<= 1.5x raw", a <= 1.5 * b)
    row("cold", f"{lang} start, no process limit", f, b, "ms", "-", None)


def first_result(cls, lang, config) -> float:
    t = time.perf_counter()
    runner = cls(config)
    result = drain(runner.run(raw.TRIVIAL[lang]))
    took = time.perf_counter() - t
    runner.stop()
    if not result.ok:
        raise RuntimeError(f"first block failed: {result.summary()}")
    return took


# -- 3. large output (measured in fresh subprocesses) ------------------------------
def child_large_output(mode: str, mb: int) -> dict:
    """Runs in a subprocess: one big block, then this process's own peak RSS."""
    py, block = python_exe(), BIG_BLOCK.format(mb)
    if mode == "interp":
        from languages.python import PythonRunner
        runner = PythonRunner(RunnerConfig(timeout=300))
        drain(runner.run("1"))
        t, chars, result = time.perf_counter(), 0, None
        for event in runner.run(block):
            if isinstance(event, Result):
                result = event
            else:
                chars += len(event.text)
        took = time.perf_counter() - t
        runner.stop()
        ok = result is not None and result.ok and result.output.total_chars == mb * MB
        got = chars
    else:
        got, took = raw.output_child(mode, py, block)
        ok = got >= mb * MB
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return dict(mode=mode, mb=mb, bytes=got, seconds=took, mb_s=mb / took, rss_mb=rss, ok=ok)


def spawn_child(mode: str, mb: int) -> dict:
    cmd = [sys.executable, __file__, "--child", f"large-output:{mode}:{mb}"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if done.returncode:
        raise RuntimeError(done.stderr.strip()[-300:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def bench_large(quick):
    mb, small = (20 if quick else 100), 20
    mine, ceiling, wrap = spawn_child("interp", mb), spawn_child("raw", mb), spawn_child("replwrap", small)
    note = "" if mine["ok"] else "output size or status wrong"
    row("large", f"python {mb} MB: throughput", mine["mb_s"], ceiling["mb_s"], "MB/s", ">= 50 MB/s",
        mine["mb_s"] >= 50 and mine["ok"], note or "baseline: raw os.read loop on the pty, output discarded")
    row("large", f"python {mb} MB: peak RSS", mine["rss_mb"], ceiling["rss_mb"], "MB", "< 150 MB",
        mine["rss_mb"] < 150, "baseline: raw pty read loop process")
    row("large", f"replwrap {small} MB: throughput", wrap["mb_s"], None, "MB/s", "-", None,
        f"replwrap.run_command keeps all output; peak RSS {wrap['rss_mb']:.0f} MB")


# -- 4. many short lines ------------------------------------------------------------
def lines_floor_argv(lang: str, py: str) -> list[str]:
    """The block as a program of its own, for the raw pty floor."""
    if lang == "python":
        return [py, "-c", LINES_BLOCK[lang]]
    if lang == "shell":
        return ["bash", "--noprofile", "--norc", "-c", LINES_BLOCK[lang]]
    return ["node", "-e", LINES_BLOCK[lang]]


def bench_lines(lang, cls, py, repeats):
    """run() to Result of a block printing LINES lines, interleaved with the raw pty floor."""
    from languages.process.terminal import reading_gives_eof
    runner = cls(RunnerConfig(timeout=300))
    mine, floor, ok = [], [], True
    try:
        drain(runner.run(raw.TRIVIAL[lang]))
        for _ in range(repeats):
            t = time.perf_counter()
            result = drain(runner.run(LINES_BLOCK[lang]))
            mine.append(time.perf_counter() - t)
            # the runner's terminal mode (no CR before LF), so both sides carry the same bytes
            got, took = raw.pty_floor(lines_floor_argv(lang, py), lambda: reading_gives_eof(1))
            floor.append(took)
            ok = ok and result.ok and result.output.total_chars == got
    finally:
        runner.stop()
    a, b = statistics.median(mine), statistics.median(floor)
    row("lines", f"{lang} {LINES:,} lines ({repeats}x)", a, b, "s", "<= 1.2x floor", ok and a <= 1.2 * b,
        "" if ok else "output size or status wrong")


# -- 5. interrupt latency ---------------------------------------------------------
def interp_interrupt(cls, lang, code, delay):
    runner = cls(RunnerConfig(timeout=30, grace=2.0))
    try:
        drain(runner.run(raw.TRIVIAL[lang]))
        fired = {}

        def fire():
            fired["t"] = time.perf_counter()
            runner.interrupt()

        timer = threading.Timer(delay, fire)
        timer.start()
        result = drain(runner.run(code, timeout=delay + 10))
        took = time.perf_counter() - fired.get("t", time.perf_counter())
        timer.cancel()
        token = f"tok{os.getpid()}"
        after = drain(runner.run(raw.ECHO[lang].format(token)))
        own = after.ok and after.output.text.strip() == token
        return took, result, own, after.output.text.strip()[:60]
    finally:
        runner.stop()


def bench_interrupt(name, cls, py, delay):
    lang, code = BLOCKERS[name]
    took, result, own, seen = interp_interrupt(cls, lang, code, delay)
    wrap = raw.spawn(lang, py)
    try:
        base, base_own = raw.interrupt(wrap, lang, raw.RAW_BLOCKERS.get(name, code), delay)
    finally:
        raw.close(wrap)
    clean = result.status == "interrupted" and not result.restarted
    note = "; ".join(filter(None, [
        "" if clean else f"status {result.status}: {result.summary()}",
        "" if own else f"next block printed {seen!r}", "" if base_own else "baseline next output wrong"]))
    row("interrupt", f"{name}: interrupt -> Result", took * 1e3, base * 1e3, "ms", "< 500 ms",
        took < 0.5 and own and clean, note)


# -- output -----------------------------------------------------------------------
def fmt(value, unit):
    if value is None:
        return "-"
    return f"{value:.0f} {unit}" if value >= 100 else f"{value:.2f} {unit}"


def print_tables():
    head = ("figure", "interp", "baseline", "ratio", "target", "pass?")
    for section in dict.fromkeys(r["section"] for r in ROWS):
        lines = []
        for r in (r for r in ROWS if r["section"] == section):
            if "skipped" in r or "error" in r:
                why = f"skipped ({r['skipped']})" if "skipped" in r else f"ERROR ({r['error']})"
                lines.append((r["figure"], "-", "-", "-", "-", why if "skipped" in r else f"FAIL {why}"))
                continue
            ratio = f"{r['ratio']:.2f}x" if r["ratio"] else "-"
            verdict = {True: "yes", False: "FAIL", None: "-"}[r["passed"]]
            lines.append((r["figure"], fmt(r["interp"], r["unit"]), fmt(r["baseline"], r["unit"]),
                          ratio, r["target"], verdict + (f"  [{r['note']}]" if r["note"] else "")))
        widths = [max(len(x[i]) for x in [head, *lines]) for i in range(5)]
        print(f"\n== {section} ==")
        for line in [head, *lines]:
            print(" | ".join(c.ljust(w) for c, w in zip(line, widths)) + " | " + line[5])


def summary() -> str:
    judged = [r for r in ROWS if r.get("passed") is not None or "error" in r]
    failed = [r["figure"] for r in judged if r.get("passed") is False or "error" in r]
    skipped = sum("skipped" in r for r in ROWS)
    return (f"summary: {len(judged) - len(failed)}/{len(judged)} targets met, {skipped} skipped"
            + (f"; missed: {', '.join(failed)}" if failed else ""))


# -- main -------------------------------------------------------------------------
SECTIONS = ("warm", "cold", "large", "lines", "interrupt")


def run_sections(sections: set[str], classes: dict, py: str, quick: bool) -> None:
    """Every requested section, in order; a language that cannot run is a skipped row."""
    counts = {"warm": 100 if quick else 500, "cold": 3 if quick else 10, "lines": 2 if quick else 5}
    per_lang = [("warm", "median", bench_warm), ("cold", "start", bench_cold), ("lines", "lines", bench_lines)]
    for section, figure, fn in per_lang:
        if section == "lines" and "large" in sections and "python" in classes \
                and not isinstance(classes["python"], str):
            guarded("large", "python large output", lambda: bench_large(quick))
        if section not in sections:
            continue
        for lang, cls in classes.items():
            if isinstance(cls, str):
                skip(section, f"{lang} {figure}", cls)
            else:
                guarded(section, f"{lang} {figure}", lambda: fn(lang, cls, py, counts[section]))
    if "interrupt" not in sections:
        return
    for name, (lang, _) in BLOCKERS.items():
        if lang not in classes:
            continue
        if isinstance(classes[lang], str):
            skip("interrupt", name, classes[lang])
        else:
            guarded("interrupt", name, lambda: bench_interrupt(name, classes[lang], py, 0.3))

def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs and a 20 MB output block")
    parser.add_argument("--lang", default="python,shell,javascript")
    parser.add_argument("--json", metavar="PATH", help="write all figures to PATH")
    parser.add_argument("--only", help="comma-separated sections to run (warm,cold,large,lines,interrupt)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _, mode, mb = args.child.split(":")
        print(json.dumps(child_large_output(mode, int(mb))))
        return 0
    langs = [x.strip() for x in args.lang.split(",") if x.strip()]
    sections = set((args.only or ",".join(SECTIONS)).split(","))
    py = python_exe()
    print(f"python: {py}; pexpect REPL baselines with delaybeforesend=None; quick={args.quick}")
    classes = {}
    for lang in langs:
        cls = runner_class(lang) if lang in CLASSES else f"unknown language {lang!r}"
        classes[lang] = raw.available(lang, py) or cls
    run_sections(sections, classes, py, args.quick)
    return report(args.json)


if __name__ == "__main__":
    sys.exit(main())
