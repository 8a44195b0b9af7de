"""A pandas call with `inplace=True` that changed nothing: under Copy-on-Write (pandas 3)
`df['temperature'].fillna(means, inplace=True)` fills a copy and warns ChainedAssignmentError,
and the block ends "ok". Small models learned the idiom from pandas 1 and 2 and call the task
done; a note with the line to write instead is one they act on."""

from __future__ import annotations

import re

# "<block 2>:16: ChainedAssignmentError: A value is being set on a copy ..."
_WARNED = re.compile(r"^<block \d+>:(\d+): ChainedAssignmentError:", re.MULTILINE)
# df['temperature'].fillna(df['mean_temperature'], inplace=True)
_CALL = re.compile(r"^(?P<target>[A-Za-z_]\w*(?:\[[^\[\]]+\]|\.[A-Za-z_]\w*))"
                   r"\.(?P<method>\w+)\((?P<args>.*?),?\s*inplace\s*=\s*True\s*\)$")
LINE_CHARS = 200  # a longer line is not quoted


def changed_nothing(code: str, output: str) -> str | None:
    """What the block's line that pandas warned about (ChainedAssignmentError) did, with the
    assignment to write instead where the line is a plain `col.method(..., inplace=True)`."""
    found = _WARNED.findall(output)
    lines = code.splitlines()
    if not found or not 0 < int(found[-1]) <= len(lines):
        return None
    number = int(found[-1])
    line = lines[number - 1].strip()
    if len(line) > LINE_CHARS:
        return (f"line {number} changed nothing: pandas applied its inplace=True to a copy "
                f"(the ChainedAssignmentError above); assign the result instead")
    said = (f"line {number}, {line}, changed nothing: pandas applied inplace=True to a copy "
            f"of the column (the ChainedAssignmentError above)")
    call = _CALL.match(line)
    if call is None:
        return f"{said}; assign the result instead of passing inplace=True"
    target, method, args = call.group("target", "method", "args")
    return f"{said}; write {target} = {target}.{method}({args.strip()}) instead"
