"""The value codec and framing between a check's judge and its solution's process: plain values
round-trip exactly; anything else, or anything malformed, too deep or too big, does not."""

from __future__ import annotations

import json
import os
import struct
from fractions import Fraction

import pytest

from interp.eval._check_wire import (CAP, MAX_DEPTH, Opaque, WireError, from_wire, receive,
                                     send, to_wire)

pytestmark = pytest.mark.fast


def _cross(value):
    return from_wire(json.loads(json.dumps(to_wire(value))))


@pytest.mark.parametrize("value", [
    None, True, False, 0, -7, 2 ** 5000, -(2 ** 70000), 1.5, -0.0, float("inf"), "é\ud800", b"\x00\xff",
    [1, [2, [3]]], (1, (2,)), (), {1: "a", (2, 3): frozenset({4}), "k": [None]}, {5, "x"},
    frozenset(), 1 + 2j, Fraction(1, 3), [[], {}, set()],
], ids=lambda v: type(v).__name__)
def test_plain_values_cross_exactly(value):
    back = _cross(value)
    assert back == value and type(back) is type(value)


def test_subclasses_cross_as_their_plain_values():
    class Loud(int):
        def __eq__(self, other):
            return True
        __hash__ = int.__hash__

    back = _cross([Loud(3), True])
    assert back == [3, True] and type(back[0]) is int and back[0] != 4


def test_other_objects_cross_as_opaque_stand_ins_equal_to_nothing():
    class Yes:
        def __eq__(self, other):
            return True
        __hash__ = object.__hash__

        def __repr__(self):
            return "Yes()" + "!" * 1000

    back = _cross([Yes(), (i for i in [])])
    assert all(isinstance(v, Opaque) for v in back)
    assert back[0] != back[1] and back[0] != 1 and back[0] == back[0]
    assert str(back[0]).startswith("Yes()") and len(str(back[0])) == 200
    assert str(back[1]).startswith("<generator object")


def test_nesting_is_bounded_both_ways():
    deep = []
    for _ in range(MAX_DEPTH + 5):
        deep = [deep]
    with pytest.raises(WireError, match="nested deeper"):
        to_wire(deep)
    text = "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5)
    with pytest.raises(WireError, match="nested deeper"):
        from_wire(json.loads(text))
    selfish = []
    selfish.append(selfish)
    with pytest.raises(WireError):
        to_wire(selfish)


@pytest.mark.parametrize("data", [
    {"x": 1}, {"t": 1}, {"t": [1], "s": [2]}, {"d": [[[1], 2]]}, {"i": "zz"}, {"n": "1e999"},
    {"q": [1, 0]}, {"q": ["a", 1]}, {"b": "xyz"}, {"o": [1, 2]}, {"c": ["a", 1]},
], ids=json.dumps)
def test_malformed_values_are_refused(data):
    with pytest.raises(WireError):
        from_wire(data)


def test_messages_are_framed_and_capped():
    read, write = os.pipe()
    try:
        send(write, {"value": [1, "two"]})
        assert receive(read) == {"value": [1, "two"]}
        os.write(write, struct.pack(">Q", CAP + 1))
        with pytest.raises(WireError, match="over the 64 MiB cap"):
            receive(read)
        os.write(write, struct.pack(">Q", 5) + b"[1,2]")
        with pytest.raises(WireError, match="not an object"):
            receive(read)
        os.write(write, struct.pack(">Q", 3) + b"{x}")
        with pytest.raises(WireError, match="not JSON"):
            receive(read)
        os.write(write, struct.pack(">Q", 10) + b"{}")
        os.close(write)
        write = None
        with pytest.raises(WireError, match="cut short"):
            receive(read)
        assert receive(read) is None
    finally:
        os.close(read)
        if write is not None:
            os.close(write)
