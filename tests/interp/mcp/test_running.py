"""Progress notifications: output as it streams, bounded, and a keep-alive without output."""

from __future__ import annotations

import anyio
import pytest

from interp.mcp import running
from interp.mcp.running import CHUNK, Progress

pytestmark = pytest.mark.fast


def pumped(feed, ticks: int, monkeypatch, keepalive: float = 10.0) -> list:
    """What the pump sends over `ticks` intervals while `feed(progress)` runs first."""
    monkeypatch.setattr(running, "PROGRESS_EVERY", 0.01)
    monkeypatch.setattr(running, "KEEPALIVE", keepalive)
    sent: list = []

    async def send(value, total, message):
        sent.append((value, total, message))

    async def main():
        progress = Progress(send)
        feed(progress)
        with anyio.move_on_after(0.01 * ticks):
            await progress.pump()

    anyio.run(main)
    return sent


def test_output_goes_out_once_in_order_with_escapes_removed(monkeypatch):
    def feed(progress):
        progress.feed("one\n")
        progress.feed("\x1b[31mtwo\x1b[0m\n")

    sent = pumped(feed, 10, monkeypatch)
    assert sent[0] == (1.0, None, "one\ntwo\n")
    assert all(message.startswith("(still running") for _, _, message in sent[1:])


def test_a_flood_is_cut_in_the_middle(monkeypatch):
    def feed(progress):
        progress.feed("a" * CHUNK)
        for _ in range(100):
            progress.feed("b" * 1000)
        progress.feed("END")

    message = pumped(feed, 5, monkeypatch)[0][2]
    assert message.startswith("a" * CHUNK) and message.endswith("b" * 100 + "END")
    assert f"[… {100_003 - CHUNK // 2:,} characters left out …]" in message
    assert len(message) < 2 * CHUNK


def test_a_silent_block_still_sends_a_keepalive(monkeypatch):
    sent = pumped(lambda progress: None, 20, monkeypatch, keepalive=0.05)
    assert sent and all(message.startswith("(still running after") for _, _, message in sent)
    assert [value for value, _, _ in sent] == [float(n) for n in range(1, len(sent) + 1)]
