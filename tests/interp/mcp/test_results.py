"""run_code's result: the text interp's own model is told, then each figure as a PNG image."""

from __future__ import annotations

import base64

import pytest

from languages import CapturedOutput, Display, Result

from interp.core import blocks
from interp.core.prompt.vision import MAX_IMAGE_BYTES
from interp.mcp.clients import Ran
from interp.mcp.results import block_result, text_result
from png_kit import make_png

pytestmark = pytest.mark.fast


def ran(displays=(), status="ok", files=None) -> Ran:
    output = CapturedOutput("hello\n", "", 0, 0, 6, None)
    result = Result(status=status, output=output, displays=tuple(displays),
                    error="boom" if status == "error" else None)
    return Ran(blocks.ran(4, "python", "print('hello')", result, files=files,
                          call_id="mcp-4"), session_id="20261127-000000-abcdef")


def test_a_figure_is_an_image_and_its_path_stays_in_the_text(tmp_path):
    figure = tmp_path / "figure-4-1.png"
    figure.write_bytes(make_png())
    result = block_result(ran([Display("image", f"[figure saved: {figure}]", str(figure))]))
    said, image = result.content
    assert said.text == (f"Output:\n```\nhello\n[figure saved: {figure}]\n```\nResult: ok.")
    assert image.type == "image" and image.mime_type == "image/png"
    assert base64.b64decode(image.data) == figure.read_bytes()
    assert not result.is_error
    assert result.meta["interp/block"] == {
        "block": 4, "language": "python", "status": "ok", "exit_code": None,
        "session": "20261127-000000-abcdef", "full_output": None, "figures": [str(figure)],
        "files": None}


def test_a_table_is_text_and_changed_files_are_named():
    files = blocks.FileChanges(("out.csv",), (), (), "Files created: out.csv (3 B)")
    table = Display("table", "   a\n0  1\n[DataFrame: 1 rows x 1 columns]")
    result = block_result(ran([table], files=files))
    assert len(result.content) == 1
    assert "[DataFrame: 1 rows x 1 columns]" in result.content[0].text
    assert "Files created: out.csv (3 B)\nResult: ok." in result.content[0].text


def test_a_figure_that_cannot_be_sent_is_named_instead(tmp_path):
    big, fake, gone = tmp_path / "big.png", tmp_path / "fake.png", tmp_path / "gone.png"
    big.write_bytes(make_png() + b"\0" * MAX_IMAGE_BYTES)
    fake.write_bytes(b"GIF89a")
    result = block_result(ran([Display("image", "", str(p)) for p in (big, fake, gone)]))
    notes = [part.text for part in result.content[1:]]
    assert notes == [f"(figure {big} is larger than 5 MB; not sent)",
                     f"(figure {fake} is not a PNG file; not sent)",
                     f"(figure {gone} no longer exists)"]


def test_a_block_that_failed_is_an_error_result():
    result = block_result(ran(status="error"))
    assert result.is_error and result.content[0].text.endswith("Result: error: boom.")
    assert text_result("nope", error=True).is_error
