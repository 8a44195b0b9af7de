"""Bad `--data` files: one line naming the file, the line and what is wrong, with the usage
status, from the real `interp eval` (issue 23)."""

from __future__ import annotations

import gzip
import json

import pytest

from helpers import model_args, run_interp

GOOD = {"task_id": "T/0", "prompt": "def f(x):\n    \"\"\"x\"\"\"\n", "entry_point": "f",
        "canonical_solution": "    return x\n", "base_input": [[1]], "plus_input": [[2]]}


def _line(**changes) -> bytes:
    return json.dumps({**GOOD, **changes}).encode() + b"\n"


CASES = {
    "a list": (json.dumps(GOOD).encode() + b"\n[1, 2]\n", 2,
               "a problem is a JSON object, not a list"),
    "not UTF-8": (json.dumps(GOOD).encode() + b"\n" + _line(task_id="T/1").replace(b"T/1", b"T/\xff"),
                  2, "not UTF-8 (byte 0xff at column"),
    "base_input 7": (_line(base_input=7), 1, "T/0: base_input must be a list of argument lists, not the number 7"),
    "an input not a list": (_line(plus_input=[[1], 2]), 1,
                            "T/0: plus_input must be a list of argument lists, not a list with an item that is not a list"),
    "atol a word": (_line(atol="tight"), 1, 'T/0: atol must be a number of 0 or more, not the string "tight"'),
    "test a number": (_line(base_input=None, test=3), 1, "T/0: test must be a string, not the number 3"),
    "entry point not a name": (_line(entry_point="f()"), 1, 'T/0: entry_point "f()" is not a name'),
    "twice": (_line() + _line(), 2, "task_id T/0 is also on line 1"),
    "not JSON": (b"{oops\n", 1, "not JSON (Expecting property name"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_bad_data_file_is_one_line_with_the_usage_status(case, interp_env, fake_server, tmp_path):
    content, line, message = CASES[case]
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    done = run_interp(["eval", "humaneval", "--data", str(path), *model_args(fake_server)], interp_env)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"interp eval: {path}:{line}: {message}"), done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert fake_server.requests == []


def test_a_truncated_gzip_file_is_one_line_not_aborted(interp_env, fake_server, tmp_path):
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(gzip.compress(_line() * 50)[:-20])
    done = run_interp(["eval", "humaneval", "--data", str(path), *model_args(fake_server)], interp_env)
    assert done.returncode == 2
    assert done.stderr.startswith(f"interp eval: {path}: not a complete gzip file ("), done.stderr
    assert done.stderr.count("\n") == 1 and "Aborted" not in done.stderr + done.stdout
