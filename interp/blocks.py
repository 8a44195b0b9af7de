"""From a model reply to runnable proposals, and from results back to text for the model."""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass

from languages import Registry, Result

from .model import Reply
from .parsing import parse_blocks

# Tags a model uses for data or example output; shown, never run, never "unknown".
DISPLAY_ONLY = frozenset({
    "", "text", "txt", "plaintext", "output", "console", "log", "json", "jsonl", "yaml", "yml",
    "toml", "csv", "tsv", "xml", "html", "css", "markdown", "md", "diff", "ini", "sql", "math",
    "latex", "tex", "mermaid", "svg", "http", "env", "dotenv", "properties", "conf",
})

EXECUTE_TOOL = {
    "type": "function",
    "function": {
        "name": "execute",
        "description": "Propose code to run on the user's machine after the user approves it; "
                       "returns the output.",
        "parameters": {
            "type": "object",
            "properties": {
                "language": {"type": "string", "description": "python, shell or javascript"},
                "code": {"type": "string", "description": "The code to run."},
            },
            "required": ["language", "code"],
        },
    },
}


@dataclass(frozen=True)
class Step:
    """Something in a reply to act on: a block to run, or a problem to tell the model."""

    language: str
    code: str
    call_id: str | None = None
    problem: str | None = None


def steps_from_reply(reply: Reply, registry: Registry) -> list[Step]:
    """Tool calls if the reply has any, else its fenced blocks with a language tag."""
    if reply.tool_calls:
        return [_step_from_call(call, registry) for call in reply.tool_calls]
    steps = []
    for block in parse_blocks(reply.text):
        if block.language in DISPLAY_ONLY:
            continue
        if not block.closed and reply.finish_reason == "length":
            steps.append(Step(block.language, block.code, problem="The reply was cut off inside "
                              "this block, so it was not run. Send it again, shorter."))
        elif block.language in registry:
            steps.append(Step(registry.canonical(block.language), block.code))
        else:
            steps.append(Step(block.language, block.code, problem=_unknown(block.language, registry)))
    return steps


def _step_from_call(call, registry: Registry) -> Step:
    if call.name != "execute":
        return Step("", "", call.id, f"Unknown tool {call.name!r}; the only tool is `execute`.")
    try:
        args = json.loads(call.arguments or "{}")
    except ValueError as exc:
        return Step("", "", call.id, f"The tool arguments were not valid JSON ({exc}).")
    if not isinstance(args, dict) or not isinstance(args.get("code"), str):
        return Step("", "", call.id, "The tool call needs a `code` string and a `language`.")
    language = str(args.get("language") or "python").strip().lower()
    if language not in registry:
        return Step(language, args["code"], call.id, _unknown(language, registry))
    return Step(registry.canonical(language), args["code"], call.id)


def _unknown(language: str, registry: Registry) -> str:
    return (f"Language {language!r} is not available, so the block was not run. "
            f"Available languages: {', '.join(registry.names())}.")


def describe_result(language: str, result: Result, ran_code: str | None = None, *,
                    files: str = "", python: str | None = None) -> str:
    """What the model is told after a block ran: bounded output (with the text of each figure
    and table it showed), the files it changed, a hint for a missing data package, and how it
    ended. `files` is workspace.describe's line; `python` the interpreter that ran the block."""
    parts = []
    if ran_code is not None:
        parts.append(f"The user edited the code before running it. The code that ran:\n"
                     f"```{language}\n{ran_code}\n```")
    text = result.model_text().rstrip("\n")
    parts.append(f"Output:\n{fence(text)}" if text else "No output.")
    if language == "python" and not result.ok and (hint := missing_package_hint(text, python)):
        parts.append(hint)
    if files:
        parts.append(files)
    parts.append(f"Result: {result.summary()}.")
    return "\n".join(parts)


def fence(text: str, language: str = "") -> str:
    """text in a code fence longer than any run of backticks inside it."""
    ticks = "`" * max(3, max(map(len, re.findall("`+", text)), default=0) + 1)
    return f"{ticks}{language}\n{text}\n{ticks}"


# Modules data code often needs -> the package that provides them; "data" marks interp[data].
DATA_PACKAGES = {
    "pandas": ("pandas", True), "matplotlib": ("matplotlib", True),
    "openpyxl": ("openpyxl", True), "nbformat": ("nbformat", True),
    "numpy": ("numpy", False), "scipy": ("scipy", False), "seaborn": ("seaborn", False),
    "xlrd": ("xlrd", False), "pyarrow": ("pyarrow", False), "polars": ("polars", False),
    "plotly": ("plotly", False), "statsmodels": ("statsmodels", False),
    "tabulate": ("tabulate", False), "sklearn": ("scikit-learn", False),
    "PIL": ("pillow", False), "yaml": ("pyyaml", False),
}
_MISSING = re.compile(r"ModuleNotFoundError: No module named '([\w.]+)'")


def missing_package_hint(output: str, python: str | None = None) -> str:
    """A one-line install hint when `output` shows a known data package missing, else ""."""
    found = _MISSING.findall(output)
    if not found:
        return ""
    module = found[-1].split(".")[0]
    if module not in DATA_PACKAGES:
        return ""
    package, in_extra = DATA_PACKAGES[module]
    where = f" ({python})" if python else ""
    pip = f"{python} -m pip" if python else "pip"
    text = (f"Hint: {package} is not installed in the Python that runs the blocks{where}; "
            f"install it with `{pip} install {package}`")
    if in_extra and (python is None or _same_env(python, sys.executable)):
        text += " (or all of interp's data packages with `pip install 'interp[data]'`)"
    return text + ", or do without it."


def describe_decline(reason: str | None, policy: bool = False) -> str:
    """What the model is told when a block was not run."""
    who = "denied by policy" if policy else "declined by the user"
    return f"The block was {who} and did not run." + (f" Reason: {reason}" if reason else "")


def _same_env(python: str, other: str) -> bool:
    """Whether two interpreter paths live in the same bin directory (the same environment)."""
    return os.path.dirname(os.path.abspath(python)) == os.path.dirname(os.path.abspath(other))
