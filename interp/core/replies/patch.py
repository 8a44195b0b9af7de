"""A failed block mended in one place: the statement a traceback names is replaced by the
lines the model writes for it, and the block is proposed again whole. A model that keeps
rewriting the same failing block from the top (a small greedy model copies what it sees)
is asked for those few lines instead; interp puts them in place and shows the whole block
for approval, as any block."""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass, replace

from interp.core.blocks import failing_line


@dataclass(frozen=True)
class LinePatch:
    """The statement of block `index` (lines `first`..`last` of its `code`) that failed, to
    be replaced by the model's next block."""

    language: str
    code: str
    index: int
    first: int
    last: int

    def lines(self) -> str:
        """"line 11" or "lines 11-13", as a note names them."""
        return f"line {self.first}" if self.first == self.last else f"lines {self.first}-{self.last}"

    def put(self, replacement: str) -> LinePatch | None:
        """The block with the statement replaced by `replacement` (indented as the statement
        was), as a patch of the lines put in (should they fail in turn); or None, and the
        reply's block is taken as it is: nothing to put in, or a whole block rather than a
        few lines (it holds most of the block's other lines). Lines that do not parse are
        put in all the same: their error is then reported where it is, and run alone they
        would fail on the names the block defines."""
        new = textwrap.dedent(replacement).strip("\n")
        if not new.strip() or _rewrites(self, new):
            return None
        old = self.code.splitlines()
        statement = old[self.first - 1]
        indent = statement[:len(statement) - len(statement.lstrip())]
        put = [indent + line if line.strip() else "" for line in new.splitlines()]
        code = "\n".join(old[:self.first - 1] + put + old[self.last:]) + "\n"
        return LinePatch(self.language, code, self.index, self.first, self.first + len(put) - 1)

    def failed_again(self, record) -> LinePatch | None:
        """This patch again for the next reply, when `record` ran its code and failed inside
        the lines put in (the model, asked for lines, tends to go on writing lines)."""
        if record.code != self.code or record.status != "error":
            return None
        line = failing_line(record.code, record.output_text(), record.index)
        if line is None or not self.first <= line[0] <= self.last:
            return None
        return replace(self, index=record.index)


def patch_target(language: str, code: str, index: int, number: int) -> LinePatch | None:
    """The statement of a Python block around its line `number` that can be replaced on its
    own: the innermost simple statement (not a loop's or a function's header) when the block
    parses; when it does not, the line itself if the rest parses without it. None otherwise."""
    if language != "python":
        return None
    lines = code.splitlines()
    if not 0 < number <= len(lines):
        return None
    if not _parses(code):
        return LinePatch(language, code, index, number, number) if _parses_without(
            lines, number) else None
    span = _statement(ast.parse(code), number)
    return LinePatch(language, code, index, *span) if span else None


def _statement(tree: ast.AST, number: int) -> tuple[int, int] | None:
    """(first, last) line of the innermost statement holding line `number` that has no body
    of its own; None when the line is a compound statement's own (a header, an `else:`)."""
    found = None
    for node in ast.walk(tree):
        if (isinstance(node, ast.stmt) and node.lineno <= number <= (node.end_lineno or 0)
                and not hasattr(node, "body") and not isinstance(node, ast.Match)):
            if found is None or node.lineno >= found[0]:
                found = (node.lineno, node.end_lineno or node.lineno)
    return found


def _parses_without(lines: list[str], number: int) -> bool:
    """Whether the block parses with line `number` made a `pass` (the error is that line's)."""
    line = lines[number - 1]
    indent = line[:len(line) - len(line.lstrip())]
    return _parses("\n".join(lines[:number - 1] + [indent + "pass"] + lines[number:]))


def _parses(code: str) -> bool:
    try:
        ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    return True


def _rewrites(patch: LinePatch, new: str) -> bool:
    """Whether `new` is a whole block: it holds more than half of the block's other lines."""
    old = patch.code.splitlines()
    others = {line.strip() for n, line in enumerate(old, 1)
              if line.strip() and not patch.first <= n <= patch.last}
    if not others:
        return False
    held = others & {line.strip() for line in new.splitlines()}
    return len(held) * 2 > len(others)
