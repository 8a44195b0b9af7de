"""Terminal safety: no escape sequence from the model or a program reaches the terminal."""

from __future__ import annotations

import re
from collections.abc import Callable
from io import StringIO

import pytest
from rich.console import Console

from interp.core import events as ev
from interp.ui.panels import code_panel, reply_markdown
from interp.ui.render import Renderer
from interp.ui.sanitize import OutputFilter, has_hidden, safe_output, safe_text, visible

pytestmark = pytest.mark.fast  # pure units: no process, pty or server (see conftest.py)

ATTACKS = {
    "clear": "\x1b[2J\x1b[H",
    "title": "\x1b]0;pwned\x07",
    "title-st": "\x1b]2;pwned\x1b\\",
    "clipboard": "\x1b]52;c;cm0gLXJmIH4=\x07",
    "conceal": "\x1b[8mhidden\x1b[28m",
    "cursor-up": "\x1b[A\x1b[3A\x1b[2K",
    "save-restore": "\x1b7\x1b8",
    "c1-csi": "\x9b2J",
    "c1-osc": "\x9d0;pwned\x9c",
    "dcs": "\x1bP1$r0m\x1b\\",
    "apc": "\x1b_payload\x1b\\",
    "pm": "\x1b^payload\x07",
    "c1-dcs": "\x90payload\x9c",
    "hyperlink": "\x1b]8;;http://evil.example\x07click\x1b]8;;\x07",
    "reset": "\x1bc",
    "backspace": "rm -rf ~\x08\x08\x08\x08\x08\x08\x08\x08ls      ",
    "bidi": "abc\u202eevil\u202c\u2066x\u2069",
}
BAD = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def planted() -> str:
    return "start " + " | ".join(ATTACKS.values()) + " end\n"


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_safe_text_and_output_drop_every_attack(name):
    for clean in (safe_text(ATTACKS[name]), safe_output(ATTACKS[name])):
        assert not BAD.search(clean), (name, clean)
    assert "pwned" not in safe_text(ATTACKS["title"]) + safe_text(ATTACKS["c1-osc"])
    assert "cm0g" not in safe_output(ATTACKS["clipboard"])


def test_plain_text_and_progress_lines_survive():
    assert safe_text("héllo\tworld\n✔️ done 👨‍👩‍👧") == "héllo\tworld\n✔️ done 👨‍👩‍👧"
    assert safe_output("10%\r50%\r100%\n") == "10%\r50%\r100%\n"
    assert safe_text("10%\r50%\r100%\n") == "100%\n"
    assert safe_text("\x1b[31mred\x1b[0m") == "red"


def test_an_escape_cannot_be_rebuilt_from_pieces():
    assert "\x1b" not in safe_output("\x1b\x1b[2J[2J") and "\x1b" not in safe_text("\x1b\x1b]0;x")


def feed_all(chunks, **kwargs) -> str:
    stream = OutputFilter(**kwargs)
    return "".join(stream.feed(c) for c in chunks) + stream.flush()


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_escape_split_at_every_position_never_leaks(name):
    text = "a" + ATTACKS[name] + "b"
    for cut in range(len(text) + 1):
        for second in range(cut, len(text) + 1):
            out = feed_all([text[:cut], text[cut:second], text[second:]])
            assert not BAD.search(out), (name, cut, second, out)
            assert out.startswith("a") and out.endswith("b")


def test_stream_drops_an_endless_string_body_and_keeps_memory_bounded():
    stream = OutputFilter()
    shown = stream.feed("before \x1b]52;c;")
    for _ in range(100):
        shown += stream.feed("QUFB" * 1000)
        assert len(stream._escapes._raw) <= 300
    shown += stream.feed("\x07after") + stream.flush()
    assert shown == "before after"


def test_stream_redacts_a_secret_split_across_chunks():
    secret = "sk-test-123456"
    text = f"key={secret}; again {secret}\x1b[0m!"
    for cut in range(len(text) + 1):
        out = feed_all([text[:cut], text[cut:]], secrets=[secret])
        assert out == "key=[REDACTED]; again [REDACTED]!"
    assert feed_all(["sk-te", "a party"], secrets=[secret]) == "sk-tea party"


def test_visible_shows_controls_invisibles_and_lookalike_spaces():
    code = ("a\x1bb\rc\x00d\x7fe\x9bf\u00a0g\u200bh\u202ei\u2066j\ufeffk\u00adl\u3164m"
            "\U000e0041n\u2028o\u2420p")
    assert visible(code) == ("a\\eb\\rc\\0d\\x7fe\\x9bf\\xa0g\\u200bh\\u202ei\\u2066j\\ufeffk"
                             "\\xadl\\u3164m\\U000e0041n\\u2028o\\u2420p")
    assert has_hidden(code) and not has_hidden("print('hi')\n\tx = 1\n")


def test_visible_marks_trailing_whitespace_but_not_blank_lines_or_emoji():
    assert visible("echo hi \\ \nnext\t\n    \nok") == "echo hi \\␠\nnext␉\n    \nok"
    assert visible("✔️ done") == "✔️ done"
    assert visible("x\ufe0f") == "x\\ufe0f"


def render(renderable_or_events, width: int = 100, color: bool = True) -> str:
    out = StringIO()
    console = Console(file=out, force_terminal=color, no_color=not color, width=width,
                      color_system="standard" if color else None)
    if isinstance(renderable_or_events, list):
        renderer = Renderer(console, secrets=["sk-test-123456"])
        for item in renderable_or_events:
            renderer.handle(item)
    else:
        console.print(renderable_or_events)
    return out.getvalue()


SEQUENCE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[^\[]")


def sequences(raw: str) -> set[str]:
    """The escape sequences in raw; fails if any other control character is left."""
    assert not BAD.search(SEQUENCE.sub("", raw).replace("\r", ""))
    return set(SEQUENCE.findall(raw))


def session_events(code: str, planted: Callable[[], str] = planted) -> list[ev.Event]:
    text = planted()
    return [
        ev.event(ev.MESSAGE_DELTA, text=text),
        ev.event(ev.MESSAGE, text=text + f"```python\n{code}\n```\n", final=False),
        ev.event(ev.BLOCK_PROPOSED, index=1, language="python", code=code),
        ev.event(ev.BLOCK_APPROVED, index=1, language="python", code=code, edited=False),
        *[ev.event(ev.BLOCK_OUTPUT, index=1, text=text[i:i + 3]) for i in range(0, len(text), 3)],
        ev.event(ev.BLOCK_FINISHED, index=1, status="error", duration=0.1,
                 summary="error: " + planted()),
        ev.event(ev.NOTICE, level="warning", text="careful " + planted()),
        ev.event(ev.BLOCK_DECLINED, index=2, reason="no " + planted()),
        ev.event(ev.MESSAGE, text="done " + planted(), final=True),
    ]


@pytest.mark.parametrize("color", [True, False])
def test_renderer_lets_no_planted_sequence_through(color):
    code = "print('\x1b[2J')  # \x1b]0;pwned\x07"
    raw = render(session_events(code), color=color)
    clean = render(session_events(code, lambda: "start end\n"), color=color)
    assert sequences(raw) <= sequences(clean)  # only what rich emits for clean text anyway
    if not color:
        assert not re.search(r"\x1b\[[0-9;]*m", raw)
    for needle in ("pwned", "cm0gLXJm", "\x1b[8m", "\x1b[A", "\x1b]", "\x1b[2J"):
        assert raw.count(needle) == (1 if needle == "pwned" else 0), needle  # only in the panel
    assert "start" in raw and "end" in raw and "hidden" in raw  # concealed text is shown


def test_renderer_redacts_secrets_everywhere():
    secret = "sk-test-123456"
    events = [ev.event(ev.BLOCK_APPROVED, index=1, language="shell", code="echo", edited=False),
              ev.event(ev.BLOCK_OUTPUT, index=1, text="key sk-te"),
              ev.event(ev.BLOCK_OUTPUT, index=1, text="st-123456\n"),
              ev.event(ev.BLOCK_FINISHED, index=1, status="ok", summary=secret, duration=0.1),
              ev.event(ev.NOTICE, level="error", text=f"bad key {secret}"),
              ev.event(ev.MESSAGE, text=f"the key is {secret}", final=True)]
    raw = render(events, color=False)
    assert secret not in raw and raw.count("[REDACTED]") == 4


def test_code_panel_shows_escapes_and_hides_nothing():
    code = ("import os\nos.system('ls')\x1b[1A\x1b[2K\r# harmless\u202e\n"
            "x = 1" + " " * 150 + "; os.remove('f')\necho \\ \n" + "y" * 300)
    plain = render(code_panel("python", code, "block 1"), width=60, color=False)
    flat = re.sub(r"[│╭╮╰╯─\s]|^\s*\d+ ", "", plain, flags=re.M)
    assert "\x1b" not in plain and "\u202e" not in plain and "\r" not in plain
    assert "\\e[1A\\e[2K\\r#harmless\\u202e" in flat
    assert "os.remove('f')" in flat and "y" * 300 in flat  # long lines wrap, nothing cropped
    assert "echo\\␠" in flat
    assert "shown as" in plain  # the panel says some characters are escaped
    assert re.search(r"^│\s+3 x = 1", plain, re.M)  # the wrapped line keeps one number


def test_code_panel_marks_escapes_in_reverse_video():
    raw = render(code_panel("shell", "printf '\x1b[2J'", "block 1"))
    assert "\x1b[7m\\e\x1b[0m" in raw or re.search(r"\x1b\[[0-9;]*7[0-9;]*m\\e", raw)


def test_markdown_links_show_their_target():
    raw = render(reply_markdown("see [the docs](http://evil.example/x)"), color=False)
    assert "http://evil.example/x" in raw and "\x1b]8" not in raw
