"""The answer of `interp -e` in the form a script asked for: `--output-schema FILE` (the final
answer is JSON valid against that JSON Schema, printed alone on stdout; exit status 7 when it
never is) and `--output-file PATH` (the final answer written there too). Both are checked
before anything starts: one line and exit status 2 for a schema that cannot be read or a
folder that is not there."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from interp.errors import UsageError

MAX_SCHEMA_BYTES = 1 << 20


@dataclass(frozen=True)
class Answer:
    """The flags as given: the schema's file, the file to write the answer to."""

    schema_file: str | None = None
    output_file: str | None = None

    def __bool__(self) -> bool:
        return bool(self.schema_file or self.output_file)


def read_schema(path: str) -> Any:
    """The JSON Schema in `path`, checked; UsageError (one line) when it is not one."""
    from interp.core.checks.schema import SchemaError, check_schema

    try:
        data = Path(path).expanduser().read_bytes()[:MAX_SCHEMA_BYTES + 1]
    except OSError as exc:
        raise UsageError(f"interp: --output-schema {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_SCHEMA_BYTES:
        raise UsageError(f"interp: --output-schema {path}: larger than 1 MB")
    try:
        schema = json.loads(data)
    except ValueError as exc:
        raise UsageError(f"interp: --output-schema {path}: not JSON ({exc})") from None
    try:
        check_schema(schema)
    except SchemaError as exc:
        raise UsageError(f"interp: --output-schema {path}: {exc}") from None
    return schema


def check_output_file(path: str) -> str:
    """`path` made absolute (the answer is written there at the end); UsageError when its
    folder does not exist or it is a folder."""
    target = Path(path).expanduser().absolute()
    if target.is_dir():
        raise UsageError(f"interp: --output-file {path}: is a folder")
    if not target.parent.is_dir():
        raise UsageError(f"interp: --output-file {path}: the folder {target.parent} does not "
                         "exist")
    return os.fspath(target)


def write_answer(path: str, session) -> str | None:
    """Write the answer to `path` (nothing when there is none); a line saying why it could
    not be written, or None."""
    from interp.core.checks.schema import answer_text

    text = answer_text(session)
    if text is None:
        return None
    try:
        Path(path).write_text(text.rstrip("\n") + "\n", encoding="utf-8")
    except OSError as exc:
        return f"interp: --output-file {path}: {exc.strerror or exc}"
    return None
