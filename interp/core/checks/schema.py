"""The answer as JSON valid against a schema the person gave (`interp -e TASK --output-schema
FILE`): the model is told the schema with the task; an answer that is not valid is sent back
once with the validation error (a check of the answer stage, on whatever `checks` says,
since the person asked for it); the session ends with exit status 7 (exits.SCHEMA) when the
last answer is still not valid. `jsonschema` is imported only when a schema is given."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from interp.core.checks.base import Request, TaskView
from interp.core.checks.catalog import ListedCheck
from interp.core.replies.fences import parse_blocks

NAME = "output-schema"
SCHEMA_CHARS = 20_000  # of the schema quoted to the model with the task
ERROR_CHARS = 600  # of a validation error quoted to the model and the person


@dataclass(frozen=True)
class Structured:
    """The JSON value an answer holds and, when it is not valid against the schema, why."""

    value: Any = None
    error: str | None = None


class SchemaError(ValueError):
    """The schema itself is not a JSON Schema (said in one line)."""


def check_schema(schema: Any) -> None:
    """SchemaError unless `schema` is a valid JSON Schema (an object or a boolean)."""
    import jsonschema

    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise SchemaError(f"not a valid JSON Schema: {_short(exc.message)}") from None


def instruction(schema: Any) -> str:
    """What the model is told with the task: the answer is one JSON value, valid against the
    schema (quoted, shortened when very long)."""
    text = json.dumps(schema, ensure_ascii=False)
    if len(text) > SCHEMA_CHARS:
        text = text[:SCHEMA_CHARS] + " …"
    return ("When the task is done, give your final answer as one JSON value valid against "
            f"this JSON Schema, and nothing else (no prose, no code fence):\n{text}")


def structured(answer: str, schema: Any) -> Structured:
    """The JSON value of an answer (the whole reply, else its one fenced block, else the first
    JSON value in it) and whether it is valid against the schema."""
    value, found = json_value(answer)
    if not found:
        return Structured(None, "the answer holds no JSON value")
    import jsonschema

    validator = jsonschema.validators.validator_for(schema)(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(value))
    if error is None:
        return Structured(value)
    where = "/".join(str(part) for part in error.absolute_path)
    return Structured(value, _short(f"{error.message}" + (f" (at /{where})" if where else "")))


def json_value(text: str) -> tuple[Any, bool]:
    """(the JSON value, True) an answer holds, or (None, False) when it holds none."""
    candidates = [text.strip()]
    blocks = [b for b in parse_blocks(text) if b.closed]
    if len(blocks) == 1:
        candidates.append(blocks[0].code.strip())
    for candidate in candidates:
        try:
            return json.loads(candidate), True
        except ValueError:
            continue
    decoder = json.JSONDecoder()
    for start in [at for at, char in enumerate(text) if char in "{["][:20]:
        try:
            return decoder.raw_decode(text[start:])[0], True
        except ValueError:
            continue
    return None, False


def schema_check(schema: Any) -> ListedCheck:
    """The check that sends an answer not valid against `schema` back once."""

    def run(view: TaskView) -> Request | None:
        found = structured(view.reply.text, schema)
        if found.error is None:
            return None
        return Request(f"Your answer is not valid against the JSON Schema the user gave: "
                       f"{found.error}. Reply with your final answer again as one JSON value "
                       "valid against that schema, and nothing else.",
                       f"The answer is not valid against the output schema ({found.error}); "
                       "sending it back once.", retracts=False)

    return ListedCheck(NAME, "the person asked for JSON valid against a schema", "answer",
                       "any", run, asks=1)


def answer_text(session) -> str | None:
    """A session's last answer as printed and written (`-e`, `--output-file`): with an
    output schema its JSON value once valid (else None), otherwise the answer's text (None:
    the task ended without one)."""
    if session.config.output_schema is not None:
        if session.structured_output is None:
            return None
        return json.dumps(session.structured_output, ensure_ascii=False)
    return session.answer


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= ERROR_CHARS else text[:ERROR_CHARS - 1] + "…"
