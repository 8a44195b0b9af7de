"""From a model reply to runnable proposals, and from results back to text for the model."""

from __future__ import annotations

import ast
import json
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from languages import Registry

from languages.python import console_paste
from languages.shell_console import is_console_paste

from interp.models.base import RAN_ON, REPEATING, Reply
from interp.core.replies.fences import CodeBlock, parse_blocks
from interp.core.replies.textcalls import ALIASES, TextCall, text_calls

# Tags a model uses for data or example output; shown, never run, never "unknown".
DISPLAY_ONLY = frozenset({
    "", "text", "txt", "plaintext", "output", "log", "json", "jsonl", "yaml", "yml",
    "toml", "csv", "tsv", "xml", "html", "css", "markdown", "md", "diff", "ini", "sql", "math",
    "latex", "tex", "mermaid", "svg", "http", "env", "dotenv", "properties", "conf",
})
# Tags of terminal transcripts, and the language whose runner takes a pasted one (the
# commands after its prompts run, its output lines are skipped). A transcript block that does
# not start with a prompt is output: shown, never run.
TRANSCRIPTS = {"console": "shell", "shell-session": "shell", "sh-session": "shell",
               "bash-session": "shell", "shellsession": "shell", "terminal": "shell",
               "pycon": "python", "python-console": "python"}


def transcript_language(block: CodeBlock) -> str | None:
    """The language a transcript block runs as, or None (not a transcript tag, or no prompt)."""
    language = TRANSCRIPTS.get(block.language)
    if language == "shell":
        return language if is_console_paste(block.code) else None
    if language == "python":
        return language if console_paste(block.code) is not None else None
    return None


def shown_only(block: CodeBlock) -> bool:
    """Whether a fenced block of a reply is shown and never run (output, data, examples)."""
    return block.language in DISPLAY_ONLY or (block.language in TRANSCRIPTS
                                              and transcript_language(block) is None)

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
class RunnerFunction:
    """A function a runner offers the model beside `execute` (an MCP server's tool): its
    name, description and JSON Schema parameters, and the block a call of it becomes: code
    in the runner's language, made from the call's arguments. A runner class lists its
    functions with a `functions()` class method (none: the attribute is absent)."""

    name: str
    description: str
    parameters: dict = field(hash=False)
    language: str
    code: Callable[[dict], str] = field(hash=False, compare=False)

    def tool(self) -> dict:
        """The function as a tool of the request (OpenAI's shape, which every client takes)."""
        return {"type": "function", "function": {"name": self.name,
                                                 "description": self.description,
                                                 "parameters": self.parameters}}


def runner_functions(registry: Registry) -> dict[str, RunnerFunction]:
    """The functions the registry's runners offer, by name."""
    found: dict[str, RunnerFunction] = {}
    for name in registry.names():
        listed = getattr(registry.resolve(name), "functions", None)
        for function in listed() if callable(listed) else ():
            found.setdefault(function.name, function)
    return found


CUT_OFF_CALL = ("Your reply was cut off by the output limit (max_tokens) inside this tool call, "
                "so it was not run. Send it again, shorter, or split the work into smaller steps.")
# "Send it again, shorter": the 1.5B model answered "Certainly, please send the code block again."
CUT_OFF_BLOCK = ("Your reply was cut off at the length limit inside this block, so the block was "
                 "not run. Write the code again, shorter.")
STOPPED_BLOCK = ("Your reply kept repeating itself inside this block, so it was stopped and the "
                 "block was not run. Write the code again, shorter, without repeating lines.")
HOW_TO_CALL = ('to run code, call the `execute` tool (a function call, not text) with the '
               'arguments {"language": "python", "code": "..."}.')
HOW_TO_FENCE = "to run code, write it in a fenced code block with a language tag, e.g. ```python."


# Shell builtins and keywords that start a command (no program on PATH has their names).
SHELL_WORDS = frozenset({"alias", "case", "cd", "declare", "export", "for", "function", "if",
                         "local", "read", "set", "shopt", "source", "unset", "while"})


def untagged_code(text: str) -> bool:
    """Whether a reply has a fenced block that reads as code but does not run (see
    unrun_code_tag)."""
    return unrun_code_tag(text) is not None


def unrun_code_tag(text: str) -> str | None:
    """The tag ("" for none) of the first fenced block that reads as code but does not run: one
    without a language tag, or a transcript's tag (```console) without a prompt. Code is
    Python with a statement other than a bare value, or a first word that is a program on
    PATH (`ls -la`) or a shell builtin (`set -e`); an output sample such as `42` is not."""
    for block in reply_blocks(text):
        code = block.code.strip()
        if not code or (block.language and not (block.language in TRANSCRIPTS and shown_only(block))):
            continue
        if _python_statements(code) or _shell_command(code):
            return block.language
    return None


def _shell_command(code: str) -> bool:
    first = code.split(None, 1)[0]
    return first in SHELL_WORDS or shutil.which(first) is not None


def _python_statements(code: str) -> bool:
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    return any(not isinstance(node, ast.Expr) or isinstance(node.value, (ast.Call, ast.Await))
               for node in tree.body)


# A line that only installs packages: a setup step, after which the reply's real work follows.
_INSTALL = re.compile(r"\s*(?:(?:sudo\s+)?(?:apt|apt-get)\s+install|(?:python3?\s+-m\s+)?pip3?"
                      r"\s+install|(?:npm|yarn|pnpm)\s+(?:install|add|i)|conda\s+install)\b[^;&|]*")


def first_block_end(text: str, registry: Registry) -> int | None:
    """Where the first fenced block of `text` that would run, other than one that only installs
    packages, ends (just past its closing fence's line ending), once that line has ended; None
    before."""
    for block in reply_blocks(text):
        if (block.closed and not shown_only(block) and _runs(block.language, registry)
                and not installs_only(block.code)):
            return block.end if text[block.end - 1:block.end] == "\n" else None
    return None


# The first line of a block that writes a file with a here-document: `cat > report.py <<'EOF'`
_HEREDOC = re.compile(r"cat\s+>>?\s*[\w./-]+\s*<<-?\s*(['\"]?)(\w+)\1")


def reply_blocks(text: str) -> list[CodeBlock]:
    """The fenced blocks of a reply, an untagged one that writes a file with a here-document
    tagged as shell: asked to save a script that way, small models leave the tag off."""
    return [replace(block, language="shell") if _untagged_heredoc(block) else block
            for block in parse_blocks(text)]


def text_before_blocks(text: str) -> str:
    """What a reply says before its first fenced block (all of it when it has none)."""
    blocks = parse_blocks(text)
    return (text[:blocks[0].start] if blocks else text).strip()


def _untagged_heredoc(block: CodeBlock) -> bool:
    lines = block.code.strip().splitlines()
    found = _HEREDOC.fullmatch(lines[0].strip()) if lines and not block.language else None
    return bool(found and block.closed and found.group(2) in (line.strip() for line in lines[1:]))


def installs_only(code: str) -> bool:
    """Whether every line of a block is a package install (`pip install pandas`, `!pip
    install`, `npm install`, `apt-get install`) or a comment."""
    lines = [line.strip().lstrip("!%") for line in code.splitlines()]
    lines = [line for line in lines if line and not line.startswith("#")]
    return bool(lines) and all(_INSTALL.fullmatch(line) for line in lines)


def _runs(language: str, registry: Registry) -> bool:
    return language in registry or TRANSCRIPTS.get(language, "") in registry


@dataclass(frozen=True)
class Step:
    """Something in a reply to act on: a block to run, or a problem to tell the model."""

    language: str
    code: str
    call_id: str | None = None
    problem: str | None = None
    fenced: bool = False  # a fenced block of the reply's text (not a tool call)
    cut_off: bool = False  # the reply ran on inside it (to the length limit, or repeating)


def steps_from_reply(reply: Reply, registry: Registry, *, fenced: bool = True,
                     tools: bool = False) -> list[Step]:
    """What to run from a reply: its tool calls; else the calls it wrote as text; else (unless
    `fenced` is False: in tool mode, once the model has used the tool) its fenced blocks with
    a language tag. `tools`: the execute tool was offered (for what a problem tells the model)."""
    if reply.tool_calls:
        return [_step_from_call(call, registry, reply.finish_reason) for call in reply.tool_calls]
    written = text_calls(reply.text)
    if written:
        return [_step_from_text(call, registry, tools) for call in written]
    if not fenced:
        return []
    steps = []
    for block in reply_blocks(reply.text):
        if shown_only(block):
            continue
        if not block.closed and reply.ran_on:
            problem = STOPPED_BLOCK if reply.finish_reason == REPEATING else CUT_OFF_BLOCK
            steps.append(Step(block.language, block.code, fenced=True, problem=problem,
                              cut_off=True))
        elif block.language in TRANSCRIPTS and TRANSCRIPTS[block.language] in registry:
            steps.append(Step(registry.canonical(TRANSCRIPTS[block.language]), block.code,
                              fenced=True))
        elif block.language in registry:
            steps.append(Step(registry.canonical(block.language), block.code, fenced=True))
        else:
            steps.append(Step(block.language, block.code, fenced=True,
                              problem=_unknown(block.language, registry)))
    return steps


def _step_from_call(call, registry: Registry, finish_reason: str | None = None) -> Step:
    function = None if call.name == "execute" else runner_functions(registry).get(call.name)
    if call.name != "execute" and function is None:
        return Step("", "", call.id, f"Unknown tool {call.name!r}; the only tool is `execute`.")
    try:
        args = json.loads(call.arguments or "{}")
    except ValueError as exc:
        if finish_reason in RAN_ON:
            return Step("", "", call.id, CUT_OFF_CALL)
        return Step("", "", call.id, f"The tool arguments were not valid JSON ({exc}).")
    if function is not None:
        if not isinstance(args, dict):
            return Step("", "", call.id, f"The arguments of {call.name} must be a JSON object.")
        return Step(function.language, function.code(args), call.id)
    return _step_from_arguments(args, registry, call.id)


def _step_from_arguments(args, registry: Registry, call_id: str | None,
                         default_language: str = "python") -> Step:
    if not isinstance(args, dict) or not isinstance(args.get("code"), str):
        return Step("", "", call_id, "The tool call needs a `code` string and a `language`.")
    language = str(args.get("language") or default_language).strip().lower()
    if language not in registry:
        return Step(language, args["code"], call_id, _unknown(language, registry))
    return Step(registry.canonical(language), args["code"], call_id)


def _step_from_text(call: TextCall, registry: Registry, tools: bool) -> Step:
    """A step from a call written as text; its result goes back as a plain message."""
    how = (HOW_TO_CALL if tools else HOW_TO_FENCE)
    function = runner_functions(registry).get(call.name) if call.name not in ALIASES else None
    if function is not None and call.arguments is not None:  # a runner's function, as text
        return Step(function.language, function.code(call.arguments))
    if call.name not in ALIASES:
        return Step("", "", None, f"There is no function {call.name!r} here, so nothing ran; "
                    f"{how}")
    if call.arguments is None:
        return Step("", "", None, f"A tool call written as text could not be read, so nothing "
                    f"ran; {how}")
    default = call.name if call.name in registry else "python"
    return _step_from_arguments(call.arguments, registry, None, default)


def _unknown(language: str, registry: Registry) -> str:
    return (f"Language {language!r} is not available, so the block was not run. "
            f"Available languages: {', '.join(registry.names())}.")


