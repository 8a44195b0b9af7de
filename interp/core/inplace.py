"""A pandas line that changed nothing: under Copy-on-Write (pandas 3)
`df['temperature'].fillna(means, inplace=True)` fills a copy, as `df[df.a > 1]['b'] = 5` sets
one, pandas warns ChainedAssignmentError, and the block ends "ok". Small models learned these
idioms from pandas 1 and 2 and call the task done; a note with what to write instead is one
they act on."""

from __future__ import annotations

import re

# "<block 2>:16: ChainedAssignmentError: A value is being set on a copy ..."
_WARNED = re.compile(r"^<block (\d+)>:(\d+): ChainedAssignmentError:", re.MULTILINE)
# df['temperature'].fillna(df['mean_temperature'], inplace=True)
_CALL = re.compile(r"^(?P<target>[A-Za-z_]\w*(?:\[[^\[\]]+\]|\.[A-Za-z_]\w*))"
                   r"\.(?P<method>\w+)\((?P<args>.*?),?\s*inplace\s*=\s*True\s*\)$")
LINE_CHARS = 200  # a longer line is not quoted


def changed_nothing(code: str, output: str, index: int) -> str | None:
    """What the line of block `index` that pandas warned about (ChainedAssignmentError) did,
    with what to write instead (the assignment, where it is `col.method(..., inplace=True)`);
    a warning for a line of an earlier block (a function it defined) is not this code's."""
    found = [int(line) for block, line in _WARNED.findall(output) if int(block) == index]
    lines = code.splitlines()
    if not found or not 0 < found[-1] <= len(lines):
        return None
    number = found[-1]
    line = lines[number - 1].strip()
    shown = f"line {number}, {line}," if len(line) <= LINE_CHARS else f"line {number}"
    if "inplace" not in line:
        return (f"{shown} changed nothing: it set values on a copy (chained assignment: the "
                f"ChainedAssignmentError above); set them in one step with "
                f"df.loc[rows, column] = value")
    said = (f"{shown} changed nothing: pandas applied inplace=True to a copy of the column "
            f"(the ChainedAssignmentError above)")
    call = _CALL.match(line) if len(line) <= LINE_CHARS else None
    if call is None:
        return f"{said}; assign the result instead of passing inplace=True"
    target, method, args = call.group("target", "method", "args")
    return f"{said}; write {target} = {target}.{method}({args.strip()}) instead"
