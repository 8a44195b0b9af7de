"""What a checkpoint costs per block, next to `git add -A && git commit` on the same folder.

    python bench/bench_checkpoints.py [--quick] [--sizes 100,1000,10000] [--json PATH]

Speed targets live here, never as timed test assertions. See bench/README.md.
For each folder size (files of about 200 bytes in 20 files a folder): interp's checkpoints
around a block (`before_block` + `after_block`, given the file snapshots the block's report
takes anyway), the same with those two snapshots counted in, and interp's snapshot done by a
plain `git add -A` + `git write-tree` each time (no snapshot reuse); the baseline is
`git add -A && git commit -q` in a repository of its own on the same folder, in the same run.
Each figure is the median of the rounds, with the folder unchanged or with one file changed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent)]

from interp.checkpoints.capture import Capturer  # noqa: E402
from interp.checkpoints.recorder import Checkpoints  # noqa: E402
from interp.checkpoints.shadow import Shadow  # noqa: E402
from interp.core.files import workspace  # noqa: E402

TARGET_MS = 10.0  # per block, unchanged folder of 1,000 files (issue 26)
ROWS: list[dict] = []


class _Host:
    """What Checkpoints reads from a session (no log: nothing is written)."""

    log = None
    id = None

    def __init__(self) -> None:
        from languages import default_registry

        self.registry = default_registry(plugins=False)


def make_folder(root: Path, count: int) -> None:
    for i in range(count):
        folder = root / f"d{i // 20}"
        folder.mkdir(exist_ok=True)
        (folder / f"f{i}.txt").write_text(f"row {i}\n" * 25)


def git_commit(git_dir: Path, work: Path) -> float:
    """Seconds for `git add -A && git commit -q` (the baseline)."""
    env = {**os.environ, "GIT_DIR": str(git_dir), "GIT_WORK_TREE": str(work),
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    start = time.perf_counter()
    subprocess.run(["git", "add", "-A"], env=env, check=True, cwd=work)
    subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q",
                    "--allow-empty", "-m", "x"], env=env, check=True, cwd=work,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def per_block(points: Checkpoints, host, work: Path, index: int, change: Path | None,
              with_snapshots: bool) -> float:
    """Seconds a block pays for its checkpoints (the block itself changes `change`)."""
    snap = workspace.snapshot(work)
    start = time.perf_counter()
    if with_snapshots:
        snap = workspace.snapshot(work)
    points.before_block(host, index, "shell", snap)
    middle = time.perf_counter()
    if change is not None:
        change.write_text(f"changed {index}\n")
    resumed = time.perf_counter()
    after = workspace.snapshot(work)
    if not with_snapshots:
        resumed = time.perf_counter()
    points.after_block(host, index, after)
    return (middle - start) + (time.perf_counter() - resumed)


def plain_git(capturer: Capturer, work: Path) -> float:
    """Seconds for one state by `git add -A` + `git write-tree` alone (no reuse)."""
    start = time.perf_counter()
    capturer.take(None, time.monotonic() + 600)
    return time.perf_counter() - start


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def row(figure: str, ms: float, base: float | None, target: float | None = None) -> None:
    ratio = ms / base if base else None
    ok = None if target is None else ms <= target
    ROWS.append({"figure": figure, "interp_ms": round(ms, 3),
                 "baseline_ms": round(base, 3) if base else None,
                 "ratio": round(ratio, 3) if ratio else None, "target_ms": target, "pass": ok})
    print(f"{figure:<52} {ms:9.2f} ms {base or 0:9.2f} ms "
          f"{'' if ratio is None else f'{ratio:6.2f}x':>7}  "
          f"{'' if target is None else f'<= {target:g} ms':>10}  "
          f"{'' if ok is None else ('PASS' if ok else 'FAIL')}")


def bench_size(count: int, rounds: int, scratch: Path) -> None:
    work, data = scratch / f"work{count}", scratch / f"data{count}"
    work.mkdir()
    make_folder(work, count)
    host = _Host()
    points = Checkpoints(data / "checkpoints", str(work), data / "sessions", time_bound=600)
    start = time.perf_counter()
    points.before_block(host, 0, "shell", workspace.snapshot(work))
    first = time.perf_counter() - start
    base_dir = scratch / f"base{count}.git"
    subprocess.run(["git", "init", "-q", "--bare", str(base_dir)], check=True)
    first_base = git_commit(base_dir, work)
    row(f"{count} files: first checkpoint (empty store)", first * 1000, first_base * 1000)
    changed = work / "d0" / "f0.txt"
    for label, change in (("unchanged", None), ("one file changed", changed)):
        for snaps in (False, True):
            times, base = [], []
            for n in range(rounds):
                times.append(per_block(points, host, work, n + 1, change, snaps))
                base.append(git_commit(base_dir, work))
            what = "checkpoints" + (" + 2 snapshots" if snaps else "")
            target = TARGET_MS if count == 1000 and label == "unchanged" and not snaps else None
            row(f"{count} files, {label}: {what}", median_ms(times), median_ms(base), target)
    capturer = Capturer(Shadow(data / "checkpoints", str(work), index="plain"))
    plain_git(capturer, work)
    times, base = [], []
    for _ in range(rounds):
        times.append(plain_git(capturer, work))
        base.append(git_commit(base_dir, work))
    row(f"{count} files, unchanged: plain git add + write-tree", median_ms(times),
        median_ms(base))
    points.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 rounds instead of 21")
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)
    if shutil.which("git") is None:
        print("skipped: git is not installed")
        return 0
    rounds = 5 if args.quick else 21
    print(f"{'figure':<52} {'interp':>12} {'baseline':>12} {'ratio':>7}  {'target':>10}")
    scratch = Path(tempfile.mkdtemp(prefix="interp-bench-checkpoints-"))
    try:
        for count in (int(s) for s in args.sizes.split(",")):
            bench_size(count, rounds, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    failed = [r for r in ROWS if r["pass"] is False]
    summary = f"{len(ROWS)} figures, {len(failed)} over target"
    print(summary)
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": ROWS, "summary": summary}, indent=2))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
