"""What the terminal shows of code and replies: the approval panel and the reply's markdown."""

from __future__ import annotations

from rich.markdown import Markdown
from rich.panel import Panel
from rich.syntax import Syntax

from languages.escapes import HIDDEN_NOTE

from interp.core.replies.fences import CodeBlock, fence, split_text
from interp.core.replies.steps import shown_only
from interp.ui.sanitize import safe_text, visible_spans

_LEXERS = {"shell": "bash", "javascript": "javascript", "python": "python"}


def markdown(text: str) -> Markdown:
    """Sanitised markdown; links show their target instead of hiding it in a hyperlink."""
    return Markdown(safe_text(text), hyperlinks=False)


def code_panel(language: str, code: str, title: str) -> Panel:
    """The exact code, syntax-highlighted, with line numbers (so a wrapped line is not taken
    for two) and every control, invisible or trailing-space character shown, in reverse."""
    language = safe_text(language)
    shown, spans = visible_spans(code)
    body = Syntax(shown, _LEXERS.get(language, language or "text"), theme="ansi_dark",
                  word_wrap=True, line_numbers=True)
    for start, end in spans:
        body.stylize_range("reverse", _line_col(shown, start), _line_col(shown, end))
    note = HIDDEN_NOTE if spans else None
    return Panel(body, title=f"{language} {safe_text(title)}", title_align="left",
                 subtitle=note, subtitle_align="left", border_style="blue")


def _line_col(text: str, offset: int) -> tuple[int, int]:
    """Syntax.stylize_range's position (1-based line, column) of an offset into text."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start


def reply_markdown(text: str, blocks: object = None) -> Markdown:
    """The reply as markdown; runnable blocks are shown later, one by one, for approval.

    `blocks` is the message event's list of the reply's blocks ({"index", "language"}, in
    order): each runnable fenced block becomes a marker with its number and language, as the
    panel that shows it is titled. Without it (a reply whose blocks are tool calls), fenced
    code is shown as it is."""
    numbered = [b for b in blocks if isinstance(b, dict)] if isinstance(blocks, list) else []
    parts, count = [], 0
    for part in split_text(safe_text(text)):
        if isinstance(part, CodeBlock) and not shown_only(part) and count < len(numbered):
            block, count = numbered[count], count + 1
            language = safe_text(str(block.get("language") or part.language))
            parts.append(f"\n\n*▶ {language} block {block.get('index')}, shown below*\n\n")
        elif isinstance(part, CodeBlock):
            parts.append(f"\n{fence(part.code, part.language, shortest=4)}\n")
        else:
            parts.append(part)
    return Markdown("".join(parts), hyperlinks=False)
