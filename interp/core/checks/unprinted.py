"""Code that computed what the task asks and printed nothing: for "What is its determinant?"
the 1.5B model's block set `determinant = np.linalg.det(m)`, printed no line, and the model
then stated a determinant it had never seen (-10 for -24). The report says the output cannot
answer yet and gives a block that prints those values (the session keeps them)."""

from __future__ import annotations

import ast
import re

from interp.core.checks.answers import QUESTION

_SENTENCE = re.compile(r"[^.?!\n]+[.?!]?")
_WORD = re.compile(r"[a-z]{3,}")
MAX_NAMES = 4  # values printed in the block shown


def question_words(task: str) -> set[str]:
    """The words (3 letters or more) of the sentences of `task` that ask something."""
    return {word for sentence in _SENTENCE.findall(task.lower()) if QUESTION.search(sentence)
            for word in _WORD.findall(sentence)}


def unprinted(code: str, task: str) -> tuple[str, ...]:
    """Names the code assigns outside functions and classes that share a word with the
    task's question (`total_revenue` for "what is the total revenue?") and that no print
    call names, in the order assigned; () when there are none or the code does not parse."""
    words = question_words(task)
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return ()
    printed = {node.id for call in ast.walk(tree) if _is_print(call)
               for node in ast.walk(call) if isinstance(node, ast.Name)}
    found: list[str] = []
    for name in _assigned(tree.body):
        if name not in printed and name not in found and _shares_word(name, words):
            found.append(name)
    return tuple(found[:MAX_NAMES])


def printing(names: tuple[str, ...]) -> str:
    """Code that prints each of `names`, one a line."""
    return "\n".join(f'print("{name}:", {name})' for name in names)


def _assigned(body: list[ast.stmt]):
    """Names bound by assignments in `body`, also inside with/for/if/try blocks, not in
    function or class bodies."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        else:
            targets = []
        for target in targets:
            yield from (n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        for field in ("body", "orelse", "finalbody"):
            yield from _assigned(getattr(node, field, None) or [])
        for handler in getattr(node, "handlers", None) or []:
            yield from _assigned(handler.body)


def _is_print(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "print")


def _shares_word(name: str, words: set[str]) -> bool:
    for part in name.lower().split("_"):
        if part in words or (len(part) >= 4 and any(
                len(word) >= 4 and (word.startswith(part) or part.startswith(word))
                for word in words)):
            return True
    return False
