"""The sanitiser: from a model's reply to the code that is scored (EvalPlus's rules)."""

from __future__ import annotations

import pytest

from interp.eval.sanitize import defines, longest_valid, sanitize, solution_code

pytestmark = pytest.mark.fast  # pure units: no process, pty or server (see conftest.py)

REPLY = '''Sure! Here is the solution:

```python
import math
from typing import List


def helper(x):
    return x * 2

def unrelated():
    return 42

def f(a: List[int]) -> int:
    """Doubles and sums."""
    return sum(helper(x) for x in a) + OFFSET

OFFSET = 3
print(f([1, 2]))
assert f([1]) == 5

if __name__ == "__main__":
    print(f([4]))
```

It works because `helper` doubles each item.
'''


def test_prose_fences_tests_and_unneeded_definitions_fall_away():
    code = sanitize(REPLY, "f")
    assert code == ('import math\nfrom typing import List\ndef helper(x):\n    return x * 2\n'
                    'def f(a: List[int]) -> int:\n    """Doubles and sums."""\n'
                    '    return sum(helper(x) for x in a) + OFFSET\nOFFSET = 3')
    assert "unrelated" not in code and "print" not in code and "assert" not in code


def test_without_an_entry_point_every_definition_is_kept():
    code = sanitize(REPLY)
    assert "def unrelated" in code and "def f" in code and "print(" not in code


def test_the_longest_valid_run_is_taken_from_prose():
    text = "First try:\ndef f(:\n\nThen:\ndef f(x):\n    return x\n\ndef g():\n    return 1\nDone."
    assert longest_valid(text) == "def f(x):\n    return x\n\ndef g():\n    return 1"


def test_a_later_definition_wins_as_when_the_code_runs():
    text = "def f(x):\n    return 1\n\ndef f(x):\n    return 2\n"
    assert sanitize(text, "f") == "def f(x):\n    return 2"


def test_decorators_and_classes_the_entry_point_needs_are_kept():
    text = ("import functools\n\nclass Box:\n    pass\n\n@functools.lru_cache(None)\n"
            "def f(n):\n    return Box() if n else None\n")
    code = sanitize(text, "f")
    assert "@functools.lru_cache(None)\ndef f(n):" in code and "class Box" in code


def test_no_python_at_all_gives_nothing():
    assert sanitize("I cannot help with that.", "f") == ""
    assert solution_code("I cannot help with that.", "f", "def f(x):\n    \"\"\"doc\"\"\"\n") == ""


def test_a_bare_body_is_read_as_a_completion_of_the_prompt():
    prompt = "def f(x):\n    \"\"\"Add one.\"\"\"\n"
    code = solution_code("    return x + 1\n", "f", prompt)
    assert defines(code, "f") and code.endswith("return x + 1")


def test_the_prompts_imports_and_helpers_come_first():
    prompt = ("import math\nfrom typing import List\n\ndef poly(xs: list, x: float):\n"
              "    return sum(c * math.pow(x, i) for i, c in enumerate(xs))\n\n"
              "def find_zero(xs: list):\n    \"\"\"Find a zero.\"\"\"\n")
    reply = "```python\ndef find_zero(xs: List[float]):\n    return poly(xs, 0.0)\n```"
    code = solution_code(reply, "find_zero", prompt)
    assert code.startswith("import math\nfrom typing import List\ndef poly(")
    assert code.count("def find_zero") == 1
    namespace: dict = {}
    exec(code, namespace)
    assert namespace["find_zero"]([2.0, 1.0]) == 2.0


def test_a_helper_the_solution_redefines_is_not_duplicated():
    prompt = "def g(x):\n    return x\n\ndef f(x):\n    \"\"\"doc\"\"\"\n"
    code = solution_code("def g(x):\n    return -x\n\ndef f(x):\n    return g(x)\n", "f", prompt)
    assert code.count("def g") == 1 and "return -x" in code
