"""Reading block results from conversations saved before block records existed.

Such a session file has only the text the model was given: one ``user`` message with
``_output: True`` per reply ("[Block N, python]\\n..." per fenced block, N counting from 1 in
each reply) or a ``tool`` message per ``execute`` call. A block *ran* if its text ends with a
``Result: ...`` line. This module turns that text into BlockRecords once, for exports; nothing
written today is read this way.
"""

from __future__ import annotations

import re

from languages import Display

from interp.core.blocks import BlockRecord, FileChanges, not_run

ALIASES = {"py": "python", "python3": "python", "bash": "shell", "sh": "shell", "zsh": "shell",
           "js": "javascript", "node": "javascript", "nodejs": "javascript"}
_HEADER = re.compile(r"\[Block (\d+), ([^\]\n]*)\]\n")
_RESULT = re.compile(r"(?:\A|\n)Result: ([^\n]*?)\.?\s*\Z")
_EDITED = re.compile(r"\AThe user edited the code before running it\. The code that ran:\n"
                     r"(`{3,})[^\n]*\n(.*?)\n\1\n", re.S)
_OUTPUT = re.compile(r"(`{3,})\n(.*)\n\1(?=\n|\Z)", re.S)
_DECLINED = re.compile(r"\AThe block was (declined by the user|denied by policy) and did not "
                       r"run\.(?: Reason: (.*))?\Z", re.S)
_PNG = re.compile(r"(?<![\w/.~-])((?:[A-Za-z]:[\\/]|~?/|\.{1,2}/)?(?:[\w.~-]+[\\/])*"
                  r"[\w.~-]*\w\.png)\b", re.I)


def canonical(language: str) -> str:
    """A language tag as the registry names it (py -> python, bash -> shell)."""
    language = language.strip().lower()
    return ALIASES.get(language, language)


def split_report(text: str) -> dict[int, tuple[str, str]]:
    """"[Block 1, python]\\n...\\n\\n[Block 2, shell]\\n..." as {1: ("python", ...), ...}."""
    found, index = {}, 1
    match = _HEADER.match(text)
    while match and int(match.group(1)) == index:
        following = re.compile(rf"\n\n\[Block {index + 1}, [^\]\n]*\]\n").search(text, match.end())
        end = following.start() if following else len(text)
        found[index] = (match.group(2), text[match.end():end])
        match = _HEADER.match(text, end + 2) if following else None
        index += 1
    return found


def find_figures(text: str) -> list[str]:
    """The distinct ``*.png`` paths mentioned in an output, in order."""
    return list(dict.fromkeys(m.group(1) for m in _PNG.finditer(text)))


def legacy_record(index: int, language: str, code: str, report: str | None,
                  call_id: str | None = None) -> BlockRecord:
    """A record from a block's proposed code and the text the model was given about it."""
    language = canonical(language)
    if report is None:
        return not_run(index, language, code, "skipped", call_id=call_id)
    result = _RESULT.search(report)
    if result is None:
        declined = _DECLINED.match(report.strip())
        if declined:
            status = "denied" if declined.group(1) == "denied by policy" else "declined"
            return not_run(index, language, code, status, declined.group(2), call_id=call_id)
        return not_run(index, language, code, "skipped", report.strip(), call_id=call_id)
    edited = _EDITED.match(report)
    proposed, start = (code, edited.end()) if edited else (None, 0)
    output, rest = _output(report[start:result.start()])
    summary = result.group(1)
    files = next((line for line in rest.splitlines() if line.startswith("Files ")), "")
    return BlockRecord(
        index=index, language=language, code=edited.group(2) if edited else code,
        status=_status(summary), proposed=proposed, call_id=call_id, summary=summary,
        exit_code=_exit_code(summary), output_head=output, total_chars=len(output),
        displays=tuple(Display("image", "", path) for path in find_figures(output)),
        files=FileChanges(text=files) if files else None)


def _output(body: str) -> tuple[str, str]:
    """(the fenced output, the lines after it) of a report body."""
    if body.startswith("Output:\n"):
        body = body[len("Output:\n"):]
        fenced = _OUTPUT.match(body)
        if fenced:
            return fenced.group(2), body[fenced.end():]
        return body.rstrip("\n"), ""
    if body.startswith("No output."):
        return "", body[len("No output."):]
    return "", body


def _status(summary: str) -> str:
    """The status a result line stands for."""
    for prefix, status in (("ok", "ok"), ("timed out", "timeout"), ("interrupted", "interrupted"),
                           ("the process", "died")):
        if summary.startswith(prefix):
            return status
    return "error"


def _exit_code(summary: str) -> int | None:
    found = re.match(r"exit status (-?\d+)", summary)
    return int(found.group(1)) if found else None
