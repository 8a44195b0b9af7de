"""Unit tests for output decoding, bounded capture, escape stripping and marker scanning."""

from __future__ import annotations

import json
import os

import pytest

from languages.process.end_marker import PREFIX, MarkerScanner, new_token
from languages.escapes import strip_escapes
from languages.process.output_capture import OutputCapture, StreamDecoder

pytestmark = pytest.mark.fast  # pure units: no process, pty or server (see conftest.py)

# -- strip_escapes ---------------------------------------------------------------------


@pytest.mark.parametrize("raw, clean", [
    ("plain text\n", "plain text\n"),
    ("\x1b[31mred\x1b[0m", "red"),
    ("\x1b[1;38;5;208mbold orange\x1b[m", "bold orange"),
    ("\x1b[?25lhidden cursor\x1b[?25h", "hidden cursor"),
    ("\x1b[2K\x1b[1Gline", "line"),
    ("\x1b]0;window title\x07after", "after"),
    ("\x1b]2;title\x1b\\after", "after"),
    ("\x1b]8;;https://example.com\x07link\x1b]8;;\x07", "link"),
    ("\x1bP1;2qdcs data\x1b\\end", "end"),
    ("\x1b(Bcharset", "charset"),
    ("\x1b=keypad\x1b>", "keypad"),
    ("\x9b31mc1 csi", "c1 csi"),
    ("cut \x1b]0;never ended", "cut "),
    ("nul\x00bell\x07bs\x08del\x7f", "nulbellbsdel"),
    ("tab\tkept\nnewline kept\n", "tab\tkept\nnewline kept\n"),
    ("10%\r50%\r100%\ndone\n", "100%\ndone\n"),
    ("progress\r", "progress"),
    ("crlf\r\nline\r\n", "crlf\nline\n"),
    ("\x1b[31m\x1b]0;t\x07\x00", ""),
])
def test_strip_escapes(raw, clean):
    assert strip_escapes(raw) == clean


def test_strip_escapes_keeps_unicode():
    assert strip_escapes("héllo wörld ✓ \ufffd 日本") == "héllo wörld ✓ \ufffd 日本"


# -- StreamDecoder ---------------------------------------------------------------------------

def test_decoder_joins_multibyte_characters_split_across_chunks():
    data = "é✓日😀".encode()
    decoder = StreamDecoder()
    text = "".join(decoder.feed(data[i:i + 1]) for i in range(len(data)))
    text += decoder.feed(b"", final=True)
    assert text == "é✓日😀"


def test_decoder_replaces_invalid_bytes_and_never_raises():
    decoder = StreamDecoder()
    text = decoder.feed(b"\xff\xfe bad ") + decoder.feed(b"\xc3") + decoder.feed(b"", final=True)
    assert text == "\ufffd\ufffd bad \ufffd"
    assert StreamDecoder().feed(b"a\x00b\x1b[0m") == "a\x00b\x1b[0m"


def test_decoder_turns_crlf_into_lf_even_when_split():
    decoder = StreamDecoder()
    parts = [decoder.feed(b"one\r"), decoder.feed(b"\ntwo\r\n"), decoder.feed(b"three\r"),
             decoder.feed(b"x"), decoder.feed(b"end\r"), decoder.feed(b"", final=True)]
    assert parts[0] == "one"  # the CR is held until we know whether LF follows
    assert "".join(parts) == "one\ntwo\nthree\rxend\r"


def test_decoder_truncated_sequence_at_end_is_replaced():
    decoder = StreamDecoder()
    assert decoder.feed(b"ok \xe2\x9c") == "ok "
    assert decoder.feed(b"", final=True) == "\ufffd"


# -- OutputCapture / CapturedOutput -------------------------------------------------------------

def test_small_output_is_kept_whole_without_a_spool(tmp_path):
    capture = OutputCapture(tmp_path / "spool.log", head_chars=100, tail_chars=100)
    for piece in ["hello ", "\x1b[32mworld\x1b[0m", "\n"]:
        capture.feed(piece)
    out = capture.finish()
    assert out.text == "hello \x1b[32mworld\x1b[0m\n"
    assert out.total_chars == len(out.text)
    assert not out.truncated and out.omitted_chars == 0 and out.omitted_lines == 0
    assert out.spool_path is None and not (tmp_path / "spool.log").exists()
    assert out.for_model() == "hello world\n"


def test_output_exactly_at_the_limit_is_not_truncated(tmp_path):
    capture = OutputCapture(tmp_path / "spool.log", head_chars=10, tail_chars=10)
    capture.feed("a" * 20)
    out = capture.finish()
    assert not out.truncated and out.text == "a" * 20 and out.spool_path is None


def test_large_output_keeps_head_and_tail_and_spools_everything(tmp_path):
    spool = tmp_path / "spool.log"
    capture = OutputCapture(spool, head_chars=50, tail_chars=40)
    lines = [f"line {i:04d}\n" for i in range(1000)]  # 10 chars each
    for i in range(0, len(lines), 7):  # odd chunk sizes
        capture.feed("".join(lines[i:i + 7]))
    out = capture.finish()
    full = "".join(lines)
    assert out.total_chars == len(full) == 10_000
    assert out.head == full[:50] and out.tail == full[-40:]
    assert out.truncated and out.omitted_chars == 10_000 - 90
    assert out.omitted_lines == 1000 - 5 - 4
    assert out.spool_path == os.fspath(spool)
    assert spool.read_text() == full
    model = out.for_model()
    assert model.startswith(full[:50]) and model.endswith(full[-40:])
    assert f"{out.omitted_chars} characters" in model and f"({out.omitted_lines} lines)" in model
    assert os.fspath(spool) in model
    assert len(model) < 300


def test_spool_starts_with_what_came_before_it_was_opened(tmp_path):
    spool = tmp_path / "nested" / "dir" / "spool.log"
    capture = OutputCapture(spool, head_chars=5, tail_chars=5)
    for ch in "abcdefghijklmnopqrstuvwxyz":
        capture.feed(ch)
    out = capture.finish()
    assert spool.read_text() == "abcdefghijklmnopqrstuvwxyz"
    assert (out.head, out.tail, out.omitted_chars) == ("abcde", "vwxyz", 16)


def test_for_model_strips_escapes_in_head_and_tail(tmp_path):
    capture = OutputCapture(tmp_path / "s.log", head_chars=20, tail_chars=20)
    capture.feed("\x1b[31mhead\x1b[0m" + "x" * 100 + "\x1b]0;t\x07tail\x00")
    model = capture.finish().for_model()
    assert "\x1b" not in model and "\x00" not in model and "\x07" not in model
    assert model.startswith("head") and model.endswith("tail")


def test_empty_capture(tmp_path):
    out = OutputCapture(tmp_path / "s.log").finish()
    assert (out.text, out.total_chars, out.truncated, out.for_model()) == ("", 0, False, "")


def test_invalid_surrogates_in_text_do_not_break_the_spool(tmp_path):
    capture = OutputCapture(tmp_path / "s.log", head_chars=2, tail_chars=2)
    capture.feed("ab\udcffcdef")
    out = capture.finish()
    assert out.truncated and (tmp_path / "s.log").exists()


# -- MarkerScanner -----------------------------------------------------------------------------

def marker(token: str, status: dict) -> bytes:
    return f"{PREFIX}{token}__{json.dumps(status)}\n".encode()


def test_tokens_are_fresh_and_random():
    tokens = {new_token() for _ in range(200)}
    assert len(tokens) == 200
    assert all(len(t) >= 16 and int(t, 16) >= 0 for t in tokens)


def test_scanner_splits_output_from_status():
    scanner = MarkerScanner("abc123")
    out = scanner.feed(b"hello\n" + marker("abc123", {"exit_code": 3}) + b"after")
    assert out == b"hello\n"
    assert scanner.done and scanner.status == {"exit_code": 3}
    assert scanner.rest == b"after"
    assert scanner.feed(b"more") == b"" and scanner.rest == b"aftermore"


def test_scanner_byte_by_byte():
    token = new_token()
    stream = b"x__INTERP_\n__" + marker(token, {"status": "ok"}) + b"tail"
    scanner = MarkerScanner(token)
    out = b"".join(scanner.feed(stream[i:i + 1]) for i in range(len(stream)))
    assert out == b"x__INTERP_\n__"
    assert scanner.status == {"status": "ok"} and scanner.rest == b"tail"


def test_scanner_marker_directly_after_output_without_newline():
    scanner = MarkerScanner("t0k")
    assert scanner.feed(b"no newline" + marker("t0k", {})) == b"no newline"
    assert scanner.done and scanner.status == {}


def test_scanner_holds_back_only_a_possible_marker_prefix():
    scanner = MarkerScanner("feedface")
    assert scanner.feed(b"abc__INTER") == b"abc"
    assert scanner.feed(b"X") == b"__INTERX"  # no longer a prefix: released
    assert scanner.feed(b"__INTERP_feed") == b""
    assert scanner.flush() == b"__INTERP_feed"
    assert not scanner.done


def test_scanner_ignores_other_tokens():
    scanner = MarkerScanner("aaaa")
    other = marker("bbbb", {"status": "error"}) + marker("aaaa0", {"x": 1})
    assert scanner.feed(other) == other
    assert not scanner.done
    assert scanner.feed(marker("aaaa", {"status": "ok"})) == b""
    assert scanner.status == {"status": "ok"}


def test_scanner_waits_for_the_end_of_the_status_line():
    scanner = MarkerScanner("tt")
    assert scanner.feed(b"out" + f"{PREFIX}tt__".encode() + b'{"exit_') == b"out"
    assert not scanner.done
    assert scanner.feed(b'code": 0}\nrest') == b""
    assert scanner.status == {"exit_code": 0} and scanner.rest == b"rest"


@pytest.mark.parametrize("raw", [b"not json", b"[1, 2]", b"\xff\xfe", b""])
def test_scanner_survives_unreadable_status(raw):
    scanner = MarkerScanner("tt")
    scanner.feed(f"{PREFIX}tt__".encode() + raw + b"\n")
    assert scanner.done and isinstance(scanner.status, dict)


# -- the model's head and tail at line boundaries ---------------------------------------------------

def test_head_and_tail_are_cut_at_line_boundaries(tmp_path):
    capture = OutputCapture(tmp_path / "s.log", head_chars=25, tail_chars=25)
    lines = [f"line number {i:03d}\n" for i in range(100)]  # 16 characters each
    capture.feed("".join(lines))
    out = capture.finish()
    assert out.head == "line number 000\n"  # not "line number 000\nline numbe"
    assert out.tail == "line number 099\n"  # not "er 098\nline number 099\n"
    assert out.omitted_chars == 1600 - 32 and out.omitted_lines == 98
    model = out.for_model()
    assert model.startswith("line number 000\n[... 1568 characters (98 lines) omitted;")
    assert model.endswith("...]\nline number 099\n")


def test_one_long_line_is_still_cut_where_the_limit_falls(tmp_path):
    capture = OutputCapture(tmp_path / "s.log", head_chars=10, tail_chars=10)
    capture.feed("a" * 100 + "\n" + "b" * 100)
    out = capture.finish()
    assert (out.head, out.tail) == ("a" * 10, "b" * 10)


def test_tail_that_starts_a_line_keeps_it(tmp_path):
    capture = OutputCapture(tmp_path / "s.log", head_chars=4, tail_chars=9)
    capture.feed("head\n" + "x" * 30 + "\nabc\ndefg\n")
    out = capture.finish()
    assert out.head == "head" and out.tail == "abc\ndefg\n"


# -- the run's sync marker -------------------------------------------------------------------------

def test_a_run_with_a_sync_token_ends_at_the_sync_marker():
    scanner = MarkerScanner("run")
    scanner.expect("sync")
    out = scanner.feed(b"hello\n" + marker("run", {"exit_code": 1}) + b"late\n")
    assert out == b"hello\nlate\n" and not scanner.done and scanner.status == {"exit_code": 1}
    assert scanner.feed(marker("sync", {}) + b"next") == b""
    assert scanner.done and scanner.rest == b"next" and scanner.fakes == 0


def test_an_early_copy_of_the_run_marker_is_dropped_and_counted():
    scanner = MarkerScanner("run")
    scanner.expect("sync")
    stream = (b"a\n" + marker("run", {"status": "ok"}) + b"rest of the block\n"
              + marker("run", {"status": "error"}) + marker("sync", {}))
    out = b"".join(scanner.feed(stream[i:i + 3]) for i in range(0, len(stream), 3))
    assert out == b"a\nrest of the block\n"
    assert scanner.done and scanner.status == {"status": "error"} and scanner.fakes == 1


def test_the_last_sync_expected_ends_the_run_and_earlier_ones_are_dropped():
    scanner = MarkerScanner("run")
    scanner.expect("first")
    scanner.expect("second")
    assert scanner.feed(marker("first", {}) + b"between\n") == b"between\n"
    assert not scanner.done
    scanner.feed(marker("second", {}))
    assert scanner.done and scanner.status is None


def test_status_strings_with_lone_surrogates_are_replaced():
    scanner = MarkerScanner("t")
    scanner.feed(b'__INTERP_t__{"error": "bad \\ud800 name"}\n')
    assert scanner.status == {"error": "bad \ufffd name"}


# -- one sanitizer ----------------------------------------------------------------------------------

@pytest.mark.parametrize("raw, clean", [
    ("visible \x1b]0;t\nhidden\n", "visible \nhidden\n"),
    ("a \x1bPq#0;2\r\nb\n", "a \nb\n"),
    ("a \x1b_apc\nb", "a \nb"),
    ("\x9d0;c1 osc\nafter", "\nafter"),
    ("t \x1b]0;title\x07same line", "t same line"),
])
def test_an_unterminated_string_ends_at_its_line(raw, clean):
    assert strip_escapes(raw) == clean


def test_the_screen_uses_the_same_patterns():
    from interp.ui import sanitize
    from languages import escapes

    assert sanitize.drop_sequences is escapes.drop_sequences
    assert sanitize.safe_output("x \x1b]0;t\ny\n") == "x \ny\n"


# -- the part of an output a model is given --------------------------------------------------------


def test_a_model_given_fewer_characters_gets_the_start_and_end_in_whole_lines(tmp_path):
    """An output the capture kept whole (no spool file) is cut for a model that is given fewer
    characters: whole lines from the start and the end, the middle counted."""
    lines = [f"row {i:03d},1.{i:03d}\n" for i in range(100)]  # 14 characters each
    capture = OutputCapture(tmp_path / "s.log", head_chars=8000, tail_chars=8000)
    capture.feed("".join(lines))
    out = capture.finish()
    assert not out.truncated and out.spool_path is None
    cut = out.within(100)
    assert cut.head == "".join(lines[:3]) and cut.tail == "".join(lines[-3:])
    assert (cut.omitted_chars, cut.omitted_lines, cut.total_chars) == (1400 - 84, 94, 1400)
    model = out.for_model(100)
    assert model == ("".join(lines[:3]) + "[... 1316 characters (94 lines) omitted ...]\n"
                     + "".join(lines[-3:]))
    assert out.within(None) is out and out.within(5000) is out
    assert out.for_model() == "".join(lines)


def test_a_spooled_output_is_cut_further_and_still_names_its_file(tmp_path):
    capture = OutputCapture(tmp_path / "s.log", head_chars=160, tail_chars=160)
    lines = [f"line number {i:03d}\n" for i in range(100)]  # 16 characters each
    capture.feed("".join(lines))
    out = capture.finish()
    cut = out.within(64)
    assert (cut.head, cut.tail) == ("".join(lines[:2]), "".join(lines[-2:]))
    assert (cut.omitted_chars, cut.omitted_lines) == (1600 - 64, 96)
    assert out.for_model(64).endswith(
        f"[... 1536 characters (96 lines) omitted; full output in {out.spool_path} ...]\n"
        + "".join(lines[-2:]))
