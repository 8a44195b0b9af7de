"""What the loop benchmarks (`interp eval tasks`, `interp eval dabench`) share around their
items: a resumable run over a worker pool, its progress bar, where records go, and the
check that the Python running the blocks has the packages the items need. The command that
runs any benchmark: interp/eval/command.py."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from interp.eval.results import RecordFile
from interp.models.base import LOCAL

Item = TypeVar("Item")
Progress = Callable[[int, int, int], None]  # (done, total, right)


def run_resumable(items: Sequence[Item], key: Callable[[Item], str],
                  run_one: Callable[[Item], object], store: RecordFile, jobs: int = 1,
                  progress: Progress | None = None) -> list:
    """Run each item not finished in `store` already (a record's `finished`), `jobs` at a
    time, appending each record as it ends; returns the records in the items' order. On
    Ctrl-C the pool is left without waiting for an item still talking to the model."""
    earlier = store.load()
    records = {key(item): earlier[key(item)] for item in items
               if key(item) in earlier and earlier[key(item)].finished}
    todo = [item for item in items if key(item) not in records]

    def tick() -> None:
        if progress is not None:
            progress(len(records), len(items), sum(bool(r.right) for r in records.values()))

    tick()
    pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="eval-item")
    pending = {pool.submit(run_one, item): item for item in todo}
    try:
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in [f for f in pending if f in done]:  # in the items' order
                item = pending.pop(future)
                records[key(item)] = future.result()
                store.append(records[key(item)])
                tick()
    finally:
        pool.shutdown(wait=not pending, cancel_futures=True)
    return [records[key(item)] for item in items if key(item) in records]


@contextmanager
def progress_bar(label: str, enabled: bool) -> Iterator[Progress | None]:
    """A rich progress bar on stderr while a run goes on, as a Progress callable."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress as Bar, TextColumn,
                               TimeElapsedColumn)

    with Bar(TextColumn(label), BarColumn(), MofNCompleteColumn(),
             TextColumn("right {task.fields[right]}"), TimeElapsedColumn(),
             console=Console(stderr=True), transient=False) as bar:
        row = bar.add_task(label, total=None, right=0)

        def update(done: int, total: int, right: int) -> None:
            bar.update(row, completed=done, total=total, right=right)

        yield update


def results_folder(out: str | None, settings) -> tuple[Path, str]:
    """Where a run's records go (`--out`, else ./interp-eval/MODEL) and the model's name in
    them; a local model is named after its file, so two local models' results stay apart."""
    from interp.eval.results import slug

    name = settings.model
    if name == LOCAL:
        name = f"local-{Path(settings.local_model or 'model').stem}"
    return (Path(out) if out else Path("interp-eval") / slug(name)), name


def warn_missing_packages(python: str | None, packages: Sequence[str], extra: str,
                          items: str) -> None:
    """One line on stderr when the Python that runs blocks lacks one of `packages` (`extra`:
    how to install them; `items`: what the benchmark calls its items)."""
    from languages.protocol import RunnerConfig
    from languages.python import choose_python

    executable = choose_python(RunnerConfig(python=python), os.environ)[0]
    probe = ("import importlib.util as u\n"
             f"print(' '.join(n for n in {tuple(packages)!r} if u.find_spec(n) is None))")
    try:
        done = subprocess.run([executable, "-c", probe], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        sys.stderr.write(f"interp eval: cannot start {executable} ({exc})\n")
        return
    missing = done.stdout.split()
    if missing:
        sys.stderr.write(f"interp eval: {executable} lacks {', '.join(missing)}; {items} whose "
                         f"solutions use them will fail there ({extra})\n")
