"""The stdio streams the server hands the SDK: lines read on the event loop from a real pipe,
writes that never block the loop on a full pipe, and fd 0/1 moved off the wire while serving."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import anyio
import pytest

from interp.mcp.stdio import CHUNK, LineReader, LineWriter

GUARD = 60  # seconds: a hang guard, never a timing assertion


def read_all(chunks: list[bytes]) -> list[str]:
    """The lines a LineReader yields from a pipe fed `chunks` one at a time by a thread."""
    read_end, write_end = os.pipe()

    def feed() -> None:
        for chunk in chunks:
            os.write(write_end, chunk)  # blocks while the pipe is full: the reader drains it
        os.close(write_end)

    async def main() -> list[str]:
        with anyio.fail_after(GUARD):
            return [line async for line in LineReader(read_end)]

    feeder = threading.Thread(target=feed)
    feeder.start()
    try:
        return anyio.run(main)
    finally:
        feeder.join(GUARD)
        os.close(read_end)


@pytest.mark.fast
def test_lines_split_across_reads_come_back_whole_with_bad_bytes_replaced():
    euro = "€".encode()
    lines = read_all([b'{"a": 1}\n{"b": "x', euro[:1], euro[1:] + b'"}\n\xff\n', b"last"])
    assert lines == ['{"a": 1}\n', '{"b": "x€"}\n', "\ufffd\n", "last"]


@pytest.mark.fast
def test_a_line_many_reads_long_arrives_in_one_piece():
    long = b"x" * (5 * CHUNK + 123)
    lines = read_all([long[:1000], long[1000:] + b"\n", b"next\n"])
    assert [len(line) for line in lines] == [len(long) + 1, 5]
    assert lines[0] == long.decode() + "\n"


@pytest.mark.fast
def test_an_empty_input_ends_at_once():
    assert read_all([]) == []


@pytest.mark.fast
def test_a_write_to_a_full_pipe_lets_the_loop_run_until_the_reader_drains_it():
    read_end, write_end = os.pipe()
    text = "y" * (4 << 20) + "\n"  # far more than a pipe holds
    loop_ran = threading.Event()
    received: list[bytes] = []

    def drain() -> None:
        loop_ran.wait(GUARD)  # nothing is read until the loop has run during the write
        while chunk := os.read(read_end, 1 << 16):
            received.append(chunk)

    async def main() -> None:
        with anyio.fail_after(GUARD):
            async with anyio.create_task_group() as group:
                group.start_soon(tick)
                await LineWriter(write_end).write(text)
                os.close(write_end)
                group.cancel_scope.cancel()

    async def tick() -> None:
        await anyio.sleep(0)  # runs only when the writer has given the loop back
        loop_ran.set()

    reader = threading.Thread(target=drain)
    reader.start()
    try:
        anyio.run(main)
    finally:
        loop_ran.set()
        reader.join(GUARD)
        os.close(read_end)
    assert b"".join(received).decode() == text


CLAIM = """
import anyio, os, sys
from interp.mcp.stdio import claimed_stdio

async def main():
    with claimed_stdio() as (stdin, stdout):
        print("stray print")
        sys.stdout.flush()
        os.write(1, b"stray write\\n")
        assert os.read(0, 100) == b""  # fd 0 reads the null device meanwhile
        async for line in stdin:
            await stdout.write("echo " + line)
    print("after")

anyio.run(main)
"""


def test_while_claimed_stray_output_goes_to_stderr_and_only_the_protocol_to_stdout():
    done = subprocess.run([sys.executable, "-c", CLAIM], input=b"one\ntwo\n",
                          capture_output=True, timeout=GUARD)
    assert done.returncode == 0, done.stderr
    assert done.stdout == b"echo one\necho two\nafter\n"
    assert done.stderr == b"stray print\nstray write\n"
