"""The status line, the bounded output view and the token line, drawn into a real terminal
emulator (pyte): what is left on screen is what a person would see."""

from __future__ import annotations

import io

import pytest

from pty_terminal import screen_lines
from rich.console import Console

from interp.core import events as ev
from interp.ui.output_view import OutputView, left_out_line
from interp.ui.render import Renderer
from interp.ui.status import StatusLine, elapsed, fit, is_terminal
from interp.ui.usage import Tally, money, reply_line, session_line, tokens

pytestmark = pytest.mark.fast  # pure units: no process, pty or server (see conftest.py)


class Tty(io.StringIO):
    """A terminal's output, kept as text."""

    encoding = "utf-8"

    def isatty(self) -> bool:
        return True


def screen(tty: Tty) -> list[str]:
    return screen_lines(tty.getvalue().replace("\n", "\r\n"), 80, 24)


def status_line(tty: Tty) -> StatusLine:
    return StatusLine(tty, enabled=True, interval=3600)  # the thread never ticks in a test


# -- StatusLine ----------------------------------------------------------------------------
def test_status_line_draws_and_erases_cleanly():
    tty = Tty()
    status = status_line(tty)
    status.start("waiting for m")
    assert screen(tty)[-1].endswith("waiting for m · 0 s · esc to interrupt")
    with status.hidden():
        tty.write("output line\n")
    assert screen(tty)[-2:][0] == "output line"
    assert "esc to interrupt" in screen(tty)[-1]
    status.note("rate limited, retry 3 of 9 in 4 s")
    status._tick()  # what the thread does
    assert "0 s · rate limited, retry 3 of 9 in 4 s · esc to interrupt" in screen(tty)[-1]
    status.preview(["partial li"])
    status._tick()
    assert screen(tty)[-2:] == ["partial li", screen(tty)[-1]]
    status.stop()
    assert screen(tty) == ["output line"]  # nothing left behind
    status.close()


def test_status_line_disabled_writes_nothing():
    tty = Tty()
    status = StatusLine(tty, enabled=False)
    status.start("waiting")
    status.preview(["x"])
    with status.hidden():
        tty.write("text\n")
    status.stop()
    assert tty.getvalue() == "text\n"
    assert not is_terminal(io.StringIO())


def test_status_line_helpers():
    assert elapsed(7.9) == "7 s" and elapsed(125) == "2 min 05 s"
    assert fit("abcdef", 4) == "abc…" and fit("ab", 4) == "ab"


# -- OutputView ---------------------------------------------------------------------------
def collect(**bounds):
    written, live = [], []
    return OutputView(written.append, live.append, **bounds), written, live


def test_short_output_is_shown_whole_line_by_line():
    view, written, live = collect()
    view.feed("one\ntw")
    view.feed("o\nthree")
    assert "".join(written) == "one\ntwo\n" and live[-1] == "three"
    assert view.finish() is None
    assert "".join(written) == "one\ntwo\nthree\n"


def test_long_output_keeps_a_head_and_a_tail():
    view, written, live = collect(head_lines=5, tail_lines=3)
    view.feed("".join(f"{i}\n" for i in range(100)))
    assert "".join(written) == "0\n1\n2\n3\n4\n"
    assert view.collapsed and view.hidden == 95 and live[-1] == "99"
    done = view.finish()
    assert done.left_out == 92 and done.tail == ["97", "98", "99"]
    assert left_out_line(92, "/s/out.log") == "… 92 lines left out (full output: /s/out.log) …"
    assert "model got all" in left_out_line(1, None)


def test_carriage_returns_and_long_lines():
    view, written, _ = collect(line_chars=10)
    view.feed("10%\r50%\r")
    view.feed("100%\n" + "x" * 25 + "\n")
    assert written == ["100%\n" + "x" * 10 + " … [15 more characters]\n"]


def test_head_is_bounded_by_characters_too():
    view, written, _ = collect(head_chars=20, line_chars=100)
    view.feed("a" * 15 + "\n" + "b" * 15 + "\n")
    assert "".join(written) == "a" * 15 + "\n" and view.hidden == 1


# -- tokens and cost ---------------------------------------------------------------------
def test_token_and_cost_lines():
    assert [tokens(n) for n in (850, 1234, 12345, 1_500_000)] == ["850", "1.2k", "12k", "1.5M"]
    assert money(0.0012) == "$0.0012" and money(0.0312) == "$0.03" and money(0) == "$0.00"
    tally = Tally()
    tally.add({"prompt_tokens": 1200, "completion_tokens": 85}, 0.0012)
    tally.add({"prompt_tokens": 3000, "completion_tokens": 15}, 0.03)
    assert reply_line({"prompt_tokens": 1200, "completion_tokens": 85}, 0.0012, tally) == (
        "Tokens: 1.2k sent, 85 received. Cost: $0.0012 message, $0.03 session.")
    assert reply_line({"prompt_tokens": 10, "completion_tokens": 2}, None, tally).endswith(
        "Cost unknown.")
    assert session_line(12000, 1100, 0.03, True) == (
        "Session: 12k tokens sent, 1.1k received, cost $0.03.")
    assert session_line(5, 1, 0, False).endswith("cost unknown.")


# -- the Renderer with a status line ---------------------------------------------------------
def renderer(tty: Tty, enabled: bool = True) -> Renderer:
    console = Console(file=tty, force_terminal=True, width=80, color_system=None)
    return Renderer(console, status=StatusLine(tty, enabled=enabled, interval=3600))


def test_renderer_shows_waits_and_retries_and_leaves_only_the_reply():
    tty = Tty()
    r = renderer(tty)
    r.handle(ev.event(ev.MODEL_REQUEST, turn=1, model="openai/local"))
    assert "waiting for openai/local" in screen(tty)[-1]
    r.handle(ev.event(ev.MODEL_RETRY, attempt=3, max_attempts=9, delay=4, reason="rate_limit",
                      text="rate limited, retry 3 of 9 in 4 s"))
    r.status._tick()
    assert "rate limited, retry 3 of 9 in 4 s" in screen(tty)[-1]
    r.handle(ev.event(ev.MESSAGE_DELTA, text="Hello "))
    r.handle(ev.event(ev.MESSAGE_DELTA, text="there."))
    r.handle(ev.event(ev.MESSAGE, role="assistant", text="Hello there.", final=True))
    r.handle(ev.event(ev.TURN_COMPLETED, turn=1, usage={"prompt_tokens": 1200,
                                                         "completion_tokens": 85}, cost=None))
    lines = screen(tty)
    assert lines[0] == "Hello there." and lines[-1] == (
        "Tokens: 1.2k sent, 85 received. Cost unknown.")
    assert not any("waiting" in line or "retry" in line for line in lines)
    r.close()


def test_retries_without_a_status_line_print_once_each():
    tty = Tty()
    r = renderer(tty, enabled=False)
    r.handle(ev.event(ev.MODEL_REQUEST, turn=1, model="m"))
    for text in ("rate limited, retry 1 of 3 in 1 s", "rate limited, retry 1 of 3 in 1 s",
                 "rate limited, retry 2 of 3 in 2 s"):
        r.handle(ev.event(ev.MODEL_RETRY, text=text))
    assert screen(tty) == ["rate limited, retry 1 of 3 in 1 s",
                           "rate limited, retry 2 of 3 in 2 s"]


def test_a_provider_handed_to_litellm_is_said_in_a_lasting_line():
    tty = Tty()
    r = renderer(tty)
    r.handle(ev.event(ev.MODEL_REQUEST, turn=1, model="mistral/m"))
    text = "mistral refused interp's own request (400: no); sending it through litellm"
    r.handle(ev.event(ev.MODEL_HANDED_OVER, provider="mistral", status=400, detail="no",
                      text=text))
    r.handle(ev.event(ev.MESSAGE_DELTA, text="Hello."))
    r.handle(ev.event(ev.MESSAGE, role="assistant", text="Hello.", final=True))
    assert screen(tty)[:2] == [text, "Hello."]
    r.close()


def test_renderer_collapses_a_long_block_output():
    tty = Tty()
    r = renderer(tty)
    r.handle(ev.event(ev.BLOCK_APPROVED, index=3, language="python", code="x", edited=False))
    assert "running python block 3" in screen(tty)[-1]
    r.handle(ev.event(ev.BLOCK_OUTPUT, index=3, text="".join(f"n{i}\n" for i in range(300))))
    r.handle(ev.event(ev.BLOCK_DISPLAY, index=3, kind="table", text="a table", path=None,
                      data=None))
    r.handle(ev.event(ev.BLOCK_FINISHED, index=3, status="ok", summary="ok", duration=1.0,
                      truncated=True, spool_path="/s/output-3.log"))
    lines = screen(tty)
    assert lines[49] == "n49"
    assert lines[50] == "… 230 lines left out (full output: /s/output-3.log) …"
    assert lines[51] == "n280" and lines[70] == "n299"
    assert lines[71:] == ["a table", "✓ ok (1.00 s)"]  # displays after the output


def test_finished_paragraphs_are_printed_once_as_they_stream(monkeypatch):
    from interp.ui import stream

    monkeypatch.setattr(stream, "REFRESH", 0)
    tty = Tty()
    r = renderer(tty)
    r.handle(ev.event(ev.MODEL_REQUEST, turn=1, model="m"))
    reply = "First paragraph.\n\nSecond paragraph.\n\n```python\nprint(1)\n```\n\nAfter the code."
    for i in range(0, len(reply), 5):
        r.handle(ev.event(ev.MESSAGE_DELTA, text=reply[i:i + 5]))
        if i == 40:  # the first paragraph is on screen for good, the second one previewed
            lines = screen(tty)
            assert lines[0] == "First paragraph." and "waiting for m" not in lines[0]
    r.handle(ev.event(ev.MESSAGE, role="assistant", text=reply, final=False,
                      blocks=[{"index": 1, "language": "python"}]))
    lines = [line for line in screen(tty) if line.strip()]
    assert lines == ["First paragraph.", "Second paragraph.", "▶ python block 1, shown below",
                     "After the code."]
    r.close()
