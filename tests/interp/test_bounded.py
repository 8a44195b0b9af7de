"""Reading a file for context within a bound (interp/bounded.py): never past the limit
however the file grows, a FIFO or a device refused at once, the size as opened."""

from __future__ import annotations

import os
import threading

import pytest

from interp.bounded import TooLarge, chunks, read_at_most, read_head

pytestmark = pytest.mark.fast


def test_the_head_and_the_size_as_opened(tmp_path):
    path = tmp_path / "big.log"
    with open(path, "wb") as handle:
        handle.write(b"first line\n")
        handle.truncate(1 << 30)  # sparse: a read of all of it would take seconds
    head = read_head(path, 4)
    assert head.data == b"firs" and head.size == 1 << 30 and not head.whole
    assert read_head(path, 0).data == b""
    small = tmp_path / "small.txt"
    small.write_bytes(b"abc")
    assert read_head(small, 10).whole and read_at_most(small, 3) == b"abc"
    with pytest.raises(TooLarge):
        read_at_most(small, 2)


def test_a_growing_file_is_read_to_the_limit_only(tmp_path):
    path = tmp_path / "growing.log"
    path.write_bytes(b"")
    stop = threading.Event()

    def grow():
        with open(path, "ab", buffering=0) as handle:
            while not stop.is_set():
                handle.write(b"x" * 65536)

    writer = threading.Thread(target=grow)
    writer.start()
    try:
        assert sum(len(c) for c in chunks(path, 5 << 20, size=4096)) <= 5 << 20
        assert len(read_head(path, 3 << 20).data) <= 3 << 20
    finally:
        stop.set()
        writer.join()


@pytest.mark.parametrize("make", ["fifo", "link to a fifo", "device", "folder"])
def test_what_is_not_a_regular_file_is_refused_without_a_wait(tmp_path, make):
    path = tmp_path / "AGENTS.md"
    if make == "fifo":
        os.mkfifo(path)
    elif make == "link to a fifo":
        os.mkfifo(tmp_path / "pipe")
        path.symlink_to(tmp_path / "pipe")
    elif make == "device":
        path.symlink_to("/dev/zero")
    else:
        path.mkdir()
    with pytest.raises(OSError):  # a blocking open of a FIFO would wait for a writer forever
        read_head(path, 10)
    with pytest.raises(OSError):
        read_at_most(path, 10)
