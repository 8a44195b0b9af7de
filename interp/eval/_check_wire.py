"""What a check's two processes share: message framing, the value codec, time limits.

Standard library only: imported by the judge (`_check_driver.py`) and by the solution's
process (`_solution_driver.py`), which put this folder on their path themselves. Values cross
between them as JSON with tags, never pickle: None, bools, ints, floats (NaN and infinities
included), strings, bytes, complex numbers, fractions, and lists, tuples, dicts, sets and
frozensets of those. Anything else arrives as an `Opaque` stand-in that equals nothing but
itself. Messages are length-prefixed and capped; a message that is too big, cut short, nested
too deep or not in this format raises `WireError`.
"""

import json
import math
import os
import signal
import struct
import sys

CAP = 64 << 20  # bytes in one message
MAX_DEPTH = 400  # nesting of a value
REPR_CHARS = 200  # of an Opaque value's repr
TEXT_CHARS = 4000  # of a traceback or other text in a message
_HEADER = struct.Struct(">Q")
_BIG_INT_BITS = 4000  # beyond this an int goes as hex (Python limits decimal conversions)


class WireError(Exception):
    """A message or value that cannot cross: too big, cut short, too deep, or malformed."""


class TimedOut(BaseException):
    """A limit ran out (a BaseException, so `except Exception` cannot swallow it)."""


class Opaque:
    """A value of a type that cannot cross (a generator, an object): equal only to itself."""

    def __init__(self, type_name, text):
        self.type_name, self.text = type_name, text

    def __eq__(self, other):
        return self is other

    __hash__ = object.__hash__

    def __repr__(self):
        return self.text

    __str__ = __repr__


def _alarm(signum, frame):
    raise TimedOut()


def arm_alarm():
    """Make SIGALRM raise TimedOut in this process."""
    signal.signal(signal.SIGALRM, _alarm)


def limited(seconds, function, *args, **kwargs):
    """function(*args, **kwargs), raising TimedOut after `seconds`."""
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 1e-3))
    try:
        return function(*args, **kwargs)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def cut_traceback():
    """The current exception's traceback from the solution's first frame on (OpenCodeInterpreter's
    cut), else its last line."""
    import re
    import traceback

    text = traceback.format_exc()
    found = re.search(r'(File "<string>".*)', text, re.DOTALL)
    return (found.group(1) if found else text.strip().splitlines()[-1])[-TEXT_CHARS:]


def send(fd, message):
    """Write one message (a dict of plain JSON) to `fd`."""
    data = json.dumps(message, separators=(",", ":")).encode("ascii")
    if len(data) > CAP:
        raise WireError(f"a message of {len(data)} bytes is over the {CAP >> 20} MiB cap")
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view):]


def _read_exactly(fd, size):
    chunks, left = [], size
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return None if left == size else b"".join(chunks)
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def receive(fd):
    """The next message from `fd` (a dict), or None at the end of the stream."""
    header = _read_exactly(fd, _HEADER.size)
    if header is None:
        return None
    if len(header) < _HEADER.size:
        raise WireError("a message was cut short")
    (size,) = _HEADER.unpack(header)
    if size > CAP:
        raise WireError(f"a message of {size} bytes is over the {CAP >> 20} MiB cap")
    data = _read_exactly(fd, size) or b""
    if len(data) < size:
        raise WireError("a message was cut short")
    try:
        message = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise WireError(f"a message is not JSON ({type(exc).__name__})") from None
    if not isinstance(message, dict):
        raise WireError("a message is not an object")
    return message


def to_wire(value, depth=0):
    """`value` as tagged JSON (raises WireError when nested deeper than MAX_DEPTH)."""
    if depth > MAX_DEPTH:
        raise WireError(f"the value is nested deeper than {MAX_DEPTH} levels")
    kind = type(value)
    if value is None or kind is bool or kind is str or (kind is int and value.bit_length() <= _BIG_INT_BITS):
        return value
    if kind is float and math.isfinite(value):
        return value
    if kind is list:
        return [to_wire(item, depth + 1) for item in value]
    if isinstance(value, str):
        return str.__str__(value)
    import numbers  # numpy's scalars count as numbers through these ABCs

    if isinstance(value, numbers.Integral):
        number = int(value)
        return number if number.bit_length() <= _BIG_INT_BITS else {"i": format(number, "x")}
    fractions = sys.modules.get("fractions")  # a Fraction exists only once it is imported
    if fractions is not None and isinstance(value, fractions.Fraction):
        return {"q": [to_wire(value.numerator), to_wire(value.denominator)]}
    if isinstance(value, numbers.Real):
        number = float(value)
        return number if math.isfinite(number) else {"n": repr(number)}
    if isinstance(value, complex):
        return {"c": [to_wire(value.real), to_wire(value.imag)]}
    if isinstance(value, (bytes, bytearray)):
        return {"b": bytes(value).hex()}
    depth += 1
    if isinstance(value, list):
        return [to_wire(item, depth) for item in value]
    if isinstance(value, tuple):
        return {"t": [to_wire(item, depth) for item in value]}
    if isinstance(value, dict):
        return {"d": [[to_wire(k, depth), to_wire(v, depth)] for k, v in value.items()]}
    if isinstance(value, (set, frozenset)):
        return {"f" if isinstance(value, frozenset) else "s": [to_wire(item, depth) for item in value]}
    try:
        text = repr(value)[:REPR_CHARS]
    except Exception:
        text = f"<{type(value).__name__} object>"
    return {"o": [type(value).__name__[:REPR_CHARS], text]}


_SCALARS = (type(None), bool, int, float, str)


def from_wire(data, depth=0):
    """The value `to_wire` made (raises WireError for anything it would not make)."""
    if isinstance(data, _SCALARS):
        return data
    if depth > MAX_DEPTH:
        raise WireError(f"a value is nested deeper than {MAX_DEPTH} levels")
    depth += 1
    if isinstance(data, list):
        return [from_wire(item, depth) for item in data]
    if not isinstance(data, dict) or len(data) != 1:
        raise WireError("a value is not in the wire format")
    ((tag, body),) = data.items()
    try:
        return _TAGS[tag](body, depth)
    except (KeyError, TypeError, ValueError, OverflowError, ZeroDivisionError):
        raise WireError(f"a value tagged {tag[:20]!r} is malformed") from None


def _items(body, depth):
    if not isinstance(body, list):
        raise TypeError
    return [from_wire(item, depth) for item in body]


def _pair(body, depth):
    first, second = _items(body, depth)
    return first, second


def _opaque(body, depth):
    name, text = body
    if not isinstance(name, str) or not isinstance(text, str):
        raise TypeError
    return Opaque(name[:REPR_CHARS], text[:REPR_CHARS])


def _number(kind, body):
    if not isinstance(body, str) or (kind == "n" and body not in ("nan", "inf", "-inf")):
        raise ValueError
    return int(body, 16) if kind == "i" else float(body)


def _fraction(numerator, denominator):
    from fractions import Fraction

    if not isinstance(numerator, int) or not isinstance(denominator, int):
        raise TypeError
    return Fraction(numerator, denominator)


_TAGS = {
    "t": lambda body, depth: tuple(_items(body, depth)),
    "s": lambda body, depth: set(_items(body, depth)),
    "f": lambda body, depth: frozenset(_items(body, depth)),
    "d": lambda body, depth: dict(_pair(item, depth) for item in body),
    "i": lambda body, depth: _number("i", body),
    "n": lambda body, depth: _number("n", body),
    "q": lambda body, depth: _fraction(*_pair(body, depth)),
    "c": lambda body, depth: complex(*_pair(body, depth)),
    "b": lambda body, depth: bytes.fromhex(body),
    "o": _opaque,
}

