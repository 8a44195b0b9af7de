"""What a block's own comments, or its docstrings' examples, say it should print, checked
against what it printed.

Small models test their code with `print(f(x))  # Output: [1, 4, 2, 4, 3]`, see `[1, 4, 3]`,
and call the output correct. The comment is the model's own expectation (the docstring's
example, as a rule), so a line that differs from it is a failure the model can act on. A
print of a call a docstring in the block shows as an example (`>>> round(find_zero([1, 2]),
2)` then `-0.5`) is held to that example, whatever its comment says. The check holds a block
only to the expectations of calls the task itself shows (Mismatch.shown_in): a comment on a
call nobody showed is the model's guess, and a wrong guess sent back breaks right code.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass

# `# Output: X`, `# Expected output: X`, `# expected X`, `# should print X`, `# -> X`, `# => X`
_EXPECTED = re.compile(r"#\s*(?:(?:expected\s+)?output|expected|should\s+(?:be|print|return)|"
                       r"returns?|prints?|->|=>)\s*(?::|=|is)?\s*(?P<value>\S.*?)\s*$",
                       re.IGNORECASE)
MAX_SHOWN = 3  # mismatches named in one note


@dataclass(frozen=True)
class Mismatch:
    """One print whose line of output differs from the value its comment expects."""

    line: int  # the print's line in the block
    call: str  # its source, e.g. print(intersperse([1, 2, 3], 4))
    printed: str
    expected: str
    example: bool = False  # the expectation is a docstring's example, not a comment
    argument: str = ""  # what it prints, as ast.unparse writes it: intersperse([1, 2, 3], 4)

    def shown_in(self, text: str) -> bool:
        """Whether `text` (the task) shows what this print prints, blanks and quote marks
        aside: then the expectation is the person's example, not the model's guess."""
        return bool(self.argument) and _squeezed(self.argument) in _squeezed(text)


def mismatches(code: str, output: str) -> list[Mismatch]:
    """The prints at the end of a block whose output line differs from their comment.

    Only the block's last top-level statements are looked at, when they are all plain
    `print(one argument)` calls and at least as many lines were printed: the last lines of
    the output are theirs, one each."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    comments, examples = _comments(code), _examples(tree)
    run = []
    for statement in reversed(tree.body):
        if not _single_print(statement):
            break
        run.append(statement)
    run.reverse()
    # Each print ends its line: an empty one (print(''), a join of nothing) is a line too.
    lines = (output[:-1] if output.endswith("\n") else output).split("\n") if output else []
    if not run or len(lines) < len(run):
        return []
    found = []
    for statement, printed in zip(run, lines[len(lines) - len(run):]):
        comment = comments.get(statement.end_lineno)
        example = examples.get(ast.unparse(statement.value.args[0]))
        if example is not None and comment is not None and _same(comment, example):
            example = None  # the comment copies the example: it is said as the comment
        expected = example if example is not None else comment
        if expected is not None and not _same(printed, expected):
            found.append(Mismatch(statement.lineno, ast.get_source_segment(code, statement) or "",
                                  printed.strip(), expected, example is not None,
                                  ast.unparse(statement.value.args[0])))
    return found


def mismatch_note(found: list[Mismatch]) -> str:
    """What the model is told: each print that differs from its comment (or the docstring's
    example), and to fix the code."""
    shown = "; ".join(f"`{m.call[:120]}` printed "
                      f"{f'`{m.printed[:200]}`' if m.printed else 'an empty line'} but "
                      f"{'the docstring' if m.example else 'its comment'} expects "
                      f"`{m.expected[:200]}`" for m in found[:MAX_SHOWN])
    more = f" (and {len(found) - MAX_SHOWN} more)" if len(found) > MAX_SHOWN else ""
    whose = ("your code's docstring examples" if all(m.example for m in found) else
             "your code's comments" if not any(m.example for m in found) else
             "your code's comments and docstring examples")
    return (f"The output does not match what {whose} expect: {shown}{more}. "
            "So the code is not right yet: find the mistake, fix it and run the code again.")


def _single_print(statement: ast.stmt) -> bool:
    call = statement.value if isinstance(statement, ast.Expr) else None
    return (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
            and call.func.id == "print" and len(call.args) == 1 and not call.keywords
            and not isinstance(call.args[0], ast.Starred))


def _comments(code: str) -> dict[int, str]:
    """Line number -> the expected value of an `# Output: ...` comment on that line."""
    found = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type == tokenize.COMMENT and (match := _EXPECTED.match(token.string)):
                found[token.start[0]] = match.group("value")
    except (tokenize.TokenError, SyntaxError):
        return {}
    return found


def _examples(tree: ast.Module) -> dict[str, str]:
    """The examples of the docstrings in a block: the call after `>>> ` (as ast.unparse
    writes it) -> the one line after it, what it should print."""
    found = {}
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
            continue
        lines = (ast.get_docstring(node) or "").splitlines()
        for at, line in enumerate(lines[:-1]):
            shown, result = line.strip(), lines[at + 1].strip()
            if not shown.startswith(">>> ") or not result or result.startswith((">>>", "...")):
                continue
            try:
                found.setdefault(ast.unparse(ast.parse(shown[4:], mode="eval")), result)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue
    return found


def _same(printed: str, expected: str) -> bool:
    """Whether a printed line shows the expected value: equal as text (quotes around a printed
    string allowed), or as Python literals (spacing, 1.0 == 1)."""
    printed, expected = printed.strip(), expected.strip().rstrip(".")
    if printed == expected or _unquoted(expected) == printed:
        return True
    try:
        return _close(ast.literal_eval(printed), ast.literal_eval(expected))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _loose(printed) == _loose(expected)


def _close(got: object, want: object) -> bool:
    """Equal, with floats within a relative 1e-6 (0.1999999999999993 shows 0.2)."""
    if isinstance(got, (int, float)) and isinstance(want, (int, float)):
        return abs(got - want) <= 1e-6 * max(1.0, abs(got), abs(want))
    if isinstance(got, (list, tuple)) and isinstance(want, (list, tuple)):
        return len(got) == len(want) and all(_close(a, b) for a, b in zip(got, want))
    return got == want


def _unquoted(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def _loose(text: str) -> str:
    return re.sub(r"\s+", "", _unquoted(text)).lower()


def _squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text).replace('"', "'")
