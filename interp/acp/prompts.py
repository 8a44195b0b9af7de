"""A prompt's content blocks as the task interp works on: its text and the paths of the files
the person mentioned, in the order they came (interp describes a file a task names to the
model), then the text of files the editor embedded, bounded."""

from __future__ import annotations

from urllib.parse import unquote, urlparse

from interp.core.replies.fences import fence

RESOURCE_CHARS = 100_000  # of one embedded file's text in the task
PROMPT_CHARS = 1_000_000  # of the whole task


class BadPrompt(ValueError):
    """A prompt interp cannot work on; the message says why."""


def task_text(blocks: list) -> str:
    """The task a prompt's blocks make: text and mentioned files' paths in the order they
    came, then the text of embedded files; BadPrompt when it is empty, too long, or holds
    what interp said it does not take (images, audio)."""
    inline: list[str] = []
    attached: list[str] = []
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "text":
            inline.append(block.text)
        elif kind == "resource_link":
            inline.append(_where(block.uri))
        elif kind == "resource":
            inline.append(_where(block.resource.uri))
            attached.append(_embedded(block.resource))
        else:
            raise BadPrompt(f"interp takes text and files in a prompt, not {kind or 'this'} "
                            f"content")
    text = "\n\n".join(["".join(inline), *attached])
    if not text.strip():
        raise BadPrompt("the prompt is empty")
    if len(text) > PROMPT_CHARS:
        raise BadPrompt(f"the prompt is {len(text):,} characters long; interp takes at most "
                        f"{PROMPT_CHARS:,}")
    return text


def _where(uri: str) -> str:
    """A file link as its path (other links as they are)."""
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


def _embedded(resource) -> str:
    where = _where(resource.uri)
    text = getattr(resource, "text", None)
    if text is None:
        return f"{where} (binary content, not included)"
    cut = ""
    if len(text) > RESOURCE_CHARS:
        cut = f"\n(only its first {RESOURCE_CHARS:,} of {len(text):,} characters)"
        text = text[:RESOURCE_CHARS]
    return f"The content of {where}:{cut}\n{fence(text)}"
