"""Tests for interp.parsing: fenced code block extraction from model text."""

import dataclasses
import random

import pytest

from interp.core.replies.fences import CodeBlock, canonical_tag, parse_blocks, split_text

pytestmark = pytest.mark.fast  # pure units: no process, pty or server (see conftest.py)


def only(text: str) -> CodeBlock:
    """Parse ``text`` and return its single block."""
    blocks = parse_blocks(text)
    assert len(blocks) == 1, blocks
    return blocks[0]


# --- basics -----------------------------------------------------------------


def test_single_block_fields_and_offsets():
    text = "Let me check.\n```python\nprint(1)\n```\nDone."
    block = only(text)
    assert block == CodeBlock("python", "print(1)", True, 14, 37, "python")
    assert text[block.start : block.end] == "```python\nprint(1)\n```\n"


def test_code_block_is_frozen():
    block = only("```sh\nls\n```")
    with pytest.raises(dataclasses.FrozenInstanceError):
        block.code = "rm -rf /"  # type: ignore[misc]


def test_no_blocks_in_plain_text():
    assert parse_blocks("") == []
    assert parse_blocks("just prose\nwith `inline` code\n") == []


def test_multiple_blocks_in_order_with_text_between():
    text = (
        "First:\n```bash\nls -la\n```\nThen some prose.\n\n"
        "```python\nx = 1\nprint(x)\n```\nAnd node:\n```js\nconsole.log(2)\n```\n"
    )
    blocks = parse_blocks(text)
    assert [(b.language, b.code) for b in blocks] == [
        ("bash", "ls -la"),
        ("python", "x = 1\nprint(x)"),
        ("js", "console.log(2)"),
    ]
    assert all(b.closed for b in blocks)
    assert blocks[0].end <= blocks[1].start < blocks[1].end <= blocks[2].start


def test_split_text_interleaves_prose_and_blocks():
    text = "Intro\n```sh\necho hi\n```\nmiddle\n~~~py\n1\n~~~\noutro"
    parts = split_text(text)
    assert [type(p).__name__ for p in parts] == ["str", "CodeBlock", "str", "CodeBlock", "str"]
    assert parts[0] == "Intro\n"
    assert parts[2] == "middle\n"
    assert parts[4] == "outro"
    assert parts[1].code == "echo hi" and parts[3].code == "1"


def test_split_text_block_at_edges_has_no_empty_strings():
    parts = split_text("```sh\nls\n```")
    assert len(parts) == 1 and isinstance(parts[0], CodeBlock)
    assert split_text("only prose") == ["only prose"]
    assert split_text("") == []


def test_block_without_trailing_newline_after_close():
    text = "```py\na\n```"
    block = only(text)
    assert block.closed and block.end == len(text)


def test_empty_blocks():
    assert only("```python\n```\n").code == ""
    assert only("```\n```").language == ""
    assert only("~~~\n\n~~~").code == ""
    assert only("```sh\n\n\nls\n\n```").code == "\n\nls\n"


# --- fence characters and lengths ------------------------------------------


def test_tilde_fence():
    block = only("~~~bash\necho ok\n~~~\n")
    assert (block.language, block.code, block.closed) == ("bash", "echo ok", True)


def test_tilde_fence_not_closed_by_backticks():
    block = only("~~~\na\n```\nb\n~~~~\n")
    assert block.code == "a\n```\nb"
    assert block.closed


def test_backtick_fence_not_closed_by_tildes():
    block = only("```\n~~~\n```")
    assert block.code == "~~~" and block.closed


def test_four_backtick_fence_contains_triple_backtick_lines():
    text = "````markdown\nExample:\n```python\nprint(1)\n```\n````\nafter"
    block = only(text)
    assert block.language == "markdown"
    assert block.code == "Example:\n```python\nprint(1)\n```"
    assert block.closed
    assert text[block.end :] == "after"


def test_shorter_fence_like_line_inside_code_does_not_close():
    block = only("`````\n````\n```\n`````")
    assert block.code == "````\n```"
    assert block.closed


def test_longer_closing_fence_closes():
    block = only("```sh\nls\n``````\nprose")
    assert block.code == "ls" and block.closed


def test_closing_fence_with_info_string_does_not_close():
    text = "```python\na = 1\n```python\nb = 2\n```\n"
    block = only(text)
    assert block.code == "a = 1\n```python\nb = 2"


def test_closing_fence_allows_trailing_whitespace():
    assert only("```\nx\n```   \t\ny").closed


def test_triple_backticks_inside_string_with_longer_fence():
    text = '````python\ns = """\n```\ncode\n```\n"""\nprint(s)\n````\n'
    block = only(text)
    assert block.language == "python"
    assert block.code == 's = """\n```\ncode\n```\n"""\nprint(s)'
    assert block.closed


def test_inline_backticks_in_string_do_not_close():
    block = only('```python\nprint("use ``` for code")\n```')
    assert block.code == 'print("use ``` for code")'


# --- info strings and tags -------------------------------------------------


@pytest.mark.parametrize(
    ("info", "language"),
    [
        ("Python", "python"),
        ("py3", "py3"),
        ("JS", "js"),
        ("", ""),
        ("  bash  ", "bash"),
        ("python {.numberLines}", "python"),
        ('js title="x"', "js"),
        ("{.python}", "python"),
        ("{r, echo=FALSE}", "r"),
        ("python:src/main.py", "python"),
        ("c++", "c++"),
    ],
)
def test_language_from_info_string(info, language):
    block = only(f"```{info}\ncode\n```")
    assert block.language == language
    assert block.info == info.strip()
    assert block.code == "code"


def test_tilde_info_may_contain_backticks():
    block = only("~~~ sh `quoted`\necho\n~~~")
    assert block.language == "sh"
    assert block.info == "sh `quoted`"


@pytest.mark.parametrize(
    ("tag", "clean"),
    [
        ("Python", "python"),
        (" PY3 ", "py3"),
        ("{.Python}", "python"),
        (".js", "js"),
        ("python3.11", "python3.11"),
        ("python.", "python"),
        ("shell script", "shell"),
        ("{}", ""),
        ("", ""),
        ("   ", ""),
    ],
)
def test_canonical_tag(tag, clean):
    assert canonical_tag(tag) == clean


def test_canonical_tag_does_not_alias():
    assert canonical_tag("py") == "py"
    assert canonical_tag("node") == "node"


# --- inline code is not a block ----------------------------------------------


def test_inline_triple_backticks_on_text_line_are_not_blocks():
    text = "Use ```print()``` to print, or `x = 1`.\nAlso ```this``` one."
    assert parse_blocks(text) == []


def test_line_starting_with_inline_triple_backticks_is_not_a_fence():
    text = "```inline``` is not a fence\nmore text\n"
    assert parse_blocks(text) == []
    assert split_text(text) == [text]


def test_backtick_in_info_string_rejects_fence_but_later_fence_works():
    text = "```a`b\nstill prose\n```sh\nls\n```"
    block = only(text)
    assert (block.language, block.code) == ("sh", "ls")


def test_two_backticks_are_not_a_fence():
    assert parse_blocks("``\ncode\n``") == []


# --- unclosed fences ----------------------------------------------------------


def test_unclosed_fence_at_end_of_text():
    text = "Running now:\n```python\nimport os\nprint(os.getcwd())"
    block = only(text)
    assert block.closed is False
    assert block.code == "import os\nprint(os.getcwd())"
    assert block.end == len(text)


def test_unclosed_fence_just_opened():
    block = only("Here:\n```bash")
    assert (block.language, block.code, block.closed) == ("bash", "", False)


def test_only_last_block_unclosed_when_closing_fence_too_short():
    blocks = parse_blocks("```sh\nls\n```\n````py\nx\n```\n")
    assert [b.closed for b in blocks] == [True, False]
    assert blocks[1].code == "x\n```"


# --- indentation ---------------------------------------------------------------


def test_indented_fence_strips_indentation_from_content():
    block = only("  ```python\n  if x:\n      y()\n  ```")
    assert block.code == "if x:\n    y()"
    assert block.closed


def test_content_less_indented_than_fence_loses_only_its_own_spaces():
    assert only("   ```\n a\nb\n   ```").code == "a\nb"


def test_fence_in_numbered_list_item():
    text = "1. Run this:\n   ```python\n   print(1)\n   ```\n2. Then this:\n   ```bash\n   ls\n   ```\n"
    blocks = parse_blocks(text)
    assert [(b.language, b.code, b.closed) for b in blocks] == [
        ("python", "print(1)", True),
        ("bash", "ls", True),
    ]


def test_fence_in_nested_list_deeper_than_three_spaces():
    text = "- Setup:\n  - Install:\n    ```bash\n    pip install x\n      --quiet\n    ```\n"
    block = only(text)
    assert block.code == "pip install x\n  --quiet"
    assert block.closed


def test_fence_on_list_marker_line():
    text = "1. ```bash\n   echo hi\n   ```\n"
    block = only(text)
    assert (block.language, block.code, block.closed) == ("bash", "echo hi", True)
    assert text[: block.start] == "1. "


def test_under_indented_closing_fence_in_list_closes():
    block = only("1. Run:\n   ```sh\n   ls\n```\nafter")
    assert block.code == "ls" and block.closed


def test_four_space_fence_after_paragraph_is_not_a_fence():
    assert parse_blocks("Here:\n    ```python\n    x = 1\n    ```\n") == []


def test_four_space_indented_closing_fence_does_not_close():
    block = only("```\na\n    ```\n```")
    assert block.code == "a\n    ```" and block.closed


# --- line endings ---------------------------------------------------------------


def test_crlf_line_endings():
    text = "Hi\r\n```python\r\nprint(1)\r\nprint(2)\r\n```\r\nBye\r\n"
    block = only(text)
    assert block.code == "print(1)\nprint(2)"
    assert block.closed
    assert text[block.start : block.end] == "```python\r\nprint(1)\r\nprint(2)\r\n```\r\n"
    assert split_text(text)[-1] == "Bye\r\n"


def test_crlf_info_string_has_no_carriage_return():
    block = only("```bash \r\nls\r\n```")
    assert block.language == "bash" and block.info == "bash"


# --- robustness -----------------------------------------------------------------

_FRAGMENTS = [
    "```", "~~~", "````", "~~~~~", "`", "~", "``", "\n", "\n", "\r\n", "\r",
    " ", "   ", "    ", "\t", "- ", "1. ", "* ", "python", "{.js}", "x = 1",
    'title="a"', "`b`", "#", "> ", "\x00", "é",
]


@pytest.mark.parametrize("seed", range(5))
def test_random_text_never_raises_and_keeps_invariants(seed):
    rng = random.Random(seed)
    for _ in range(400):
        text = "".join(rng.choice(_FRAGMENTS) for _ in range(rng.randint(0, 40)))
        blocks = parse_blocks(text)
        parts = split_text(text)
        rebuilt = "".join(p if isinstance(p, str) else text[p.start : p.end] for p in parts)
        assert rebuilt == text
        assert [p for p in parts if isinstance(p, CodeBlock)] == blocks
        assert all(p for p in parts if isinstance(p, str))
        previous_end = 0
        for block in blocks:
            assert previous_end <= block.start < block.end <= len(text)
            assert text[block.start : block.end].lstrip(" ")[:3] in ("```", "~~~")
            assert block.language == canonical_tag(block.language)
            if "\r\r" not in text:  # a stray \r before \r\n stays in the code
                assert "\r\n" not in block.code
            previous_end = block.end
        assert all(b.closed for b in blocks[:-1])
        if blocks and not blocks[-1].closed:
            assert blocks[-1].end == len(text)
