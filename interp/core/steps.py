"""From a model reply to runnable proposals, and from results back to text for the model."""

from __future__ import annotations

import json
from dataclasses import dataclass

from languages import Registry

from interp.models.base import Reply
from interp.core.fences import parse_blocks

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


