import pytest
from interp.core.prompt.png import SIGNATURE, is_png, png_size
from png_kit import make_png

pytestmark = pytest.mark.fast  # pure units: no process, pty or server (see conftest.py)


def test_png_size_reads_the_header():
    assert png_size(make_png(37, 11)) == (37, 11)
    assert png_size(make_png(37, 11)[:24]) == (37, 11)  # the header is enough
    assert png_size(b"") is None
    assert png_size(b"GIF89a" + b"\0" * 30) is None
    assert png_size(make_png(3, 2)[:20]) is None


def test_is_png_checks_the_whole_signature():
    assert is_png(make_png()) and is_png(SIGNATURE)
    assert not is_png(b"\x89PNG") and not is_png(b"GIF89a") and not is_png(b"")
